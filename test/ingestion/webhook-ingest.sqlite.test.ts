import { webhookIngestSuite } from "./webhook-ingest.suite";

webhookIngestSuite("sqlite");
