import { authorityParitySuite } from "./authority-parity.suite";

authorityParitySuite("sqlite");
