/** How many due triggers one pass of the background work fans out. */
export const NOTIFY_TRIGGER_BATCH = 50;
/** How many due messages one pass claims (a trigger makes a message per person and channel, so more). */
export const NOTIFY_MESSAGE_BATCH = 200;
