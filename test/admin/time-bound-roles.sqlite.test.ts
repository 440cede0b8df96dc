import { timeBoundRolesSuite } from "./time-bound-roles.suite";

timeBoundRolesSuite("sqlite");
