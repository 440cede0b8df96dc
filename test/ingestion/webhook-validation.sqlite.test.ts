import { webhookValidationSuite } from "./webhook-validation.suite";

webhookValidationSuite("sqlite");
