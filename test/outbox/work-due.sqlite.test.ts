import { workDueSuite } from "./work-due.suite";

workDueSuite("sqlite");
