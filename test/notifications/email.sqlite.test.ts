import { emailNotificationSuite } from "./email.suite";

emailNotificationSuite("sqlite");
