import { runPageSuite } from "./run-page.suite";

runPageSuite("postgresql");
