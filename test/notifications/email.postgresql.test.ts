import { emailNotificationSuite } from "./email.suite";

emailNotificationSuite("postgresql");
