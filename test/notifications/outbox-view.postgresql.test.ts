import { outboxViewSuite } from "./outbox-view.suite";

outboxViewSuite("postgresql");
