import { PG_TEST_URL } from "../helpers/databases";
import { authorityParitySuite } from "./authority-parity.suite";

authorityParitySuite("postgresql", Boolean(PG_TEST_URL));
