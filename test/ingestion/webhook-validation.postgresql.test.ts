import { webhookValidationSuite } from "./webhook-validation.suite";

webhookValidationSuite("postgresql");
