import { executionReportSuite } from "./execution-report.suite";

executionReportSuite("sqlite");
