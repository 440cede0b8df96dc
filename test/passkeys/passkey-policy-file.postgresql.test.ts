import { PG_TEST_URL } from "../helpers/databases";
import { passkeyPolicyFileSuite } from "./passkey-policy-file.suite";

passkeyPolicyFileSuite("postgresql", Boolean(PG_TEST_URL));
