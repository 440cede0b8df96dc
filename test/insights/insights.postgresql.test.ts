import { insightsSuite } from "./insights.suite";

insightsSuite("postgresql");
