import { pushEndpointRuleSuite } from "./push-endpoint-rule.suite";

pushEndpointRuleSuite("sqlite");
