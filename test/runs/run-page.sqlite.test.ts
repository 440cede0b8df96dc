import { runPageSuite } from "./run-page.suite";

runPageSuite("sqlite");
