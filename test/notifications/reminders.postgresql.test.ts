import { remindersSuite } from "./reminders.suite";

remindersSuite("postgresql");
