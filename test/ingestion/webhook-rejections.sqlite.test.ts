import { webhookRejectionsSuite } from "./webhook-rejections.suite";

webhookRejectionsSuite("sqlite");
