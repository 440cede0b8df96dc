import { decisionPageSuite } from "./decision-page.suite";

decisionPageSuite("sqlite");
