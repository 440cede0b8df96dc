import { pushNotificationSuite } from "./push.suite";

pushNotificationSuite("sqlite");
