import { passkeyPolicyFileSuite } from "./passkey-policy-file.suite";

passkeyPolicyFileSuite("sqlite");
