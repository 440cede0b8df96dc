import { insightsSuite } from "./insights.suite";

insightsSuite("sqlite");
