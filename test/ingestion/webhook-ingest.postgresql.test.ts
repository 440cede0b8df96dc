import { webhookIngestSuite } from "./webhook-ingest.suite";

webhookIngestSuite("postgresql");
