/** Runs `onGone` once, when this process is orphaned (its parent changed); checked every second. */
export function whenParentGone(onGone: () => void): void;
