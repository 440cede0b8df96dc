import { remindersSuite } from "./reminders.suite";

remindersSuite("sqlite");
