import { pushNotificationSuite } from "./push.suite";

pushNotificationSuite("postgresql");
