import { policiesSuite } from "./policies.suite";

policiesSuite("sqlite");
