import { scimSuite } from "./scim.suite";

scimSuite("sqlite");
