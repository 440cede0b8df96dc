/** How many due triggers, or due messages, one pass of the background work claims. */
export const NOTIFY_BATCH = 20;
