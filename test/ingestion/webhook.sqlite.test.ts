import { webhookSuite } from "./webhook.suite";

webhookSuite("sqlite");
