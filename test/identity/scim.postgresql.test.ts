import { scimSuite } from "./scim.suite";

scimSuite("postgresql");
