/** A day in milliseconds: retention periods and whole-day date bounds count in it. */
export const DAY_MS = 86_400_000;
