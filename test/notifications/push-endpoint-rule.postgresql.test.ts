import { pushEndpointRuleSuite } from "./push-endpoint-rule.suite";

pushEndpointRuleSuite("postgresql");
