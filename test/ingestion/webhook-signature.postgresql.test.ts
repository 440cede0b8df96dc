import { webhookSignatureSuite } from "./webhook-signature.suite";

webhookSignatureSuite("postgresql");
