import { webhookSuite } from "./webhook.suite";

webhookSuite("postgresql");
