import { leaseSuite } from "./lease.suite";

leaseSuite("sqlite");
