/** Time as the marketplace sees it. Tests replace it to move time forward. */
export interface ClockPort {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: ClockPort = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the one timestamp format on the wire. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
