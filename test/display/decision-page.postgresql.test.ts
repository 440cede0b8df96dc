import { decisionPageSuite } from "./decision-page.suite";

decisionPageSuite("postgresql");
