// This instance's name on the leases it takes (triggers and messages).
import { randomUUID } from "node:crypto";

export const WORKER_ID = `${process.pid}-${randomUUID().slice(0, 8)}`;
