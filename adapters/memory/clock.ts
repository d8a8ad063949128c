import type { ClockPort } from '../../core/ports/clock.js';

export interface ManualClock extends ClockPort {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
  /** Sets the time. */
  set(time: Date | number): void;
}

/** A clock that moves only when told: signed-URL and token expiry and schedules follow it. */
export function manualClock(start: Date | number = Date.now()): ManualClock {
  let now = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => now,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error('manualClock.advance: ms must be a finite number >= 0');
      now += ms;
    },
    set(time) {
      now = typeof time === 'number' ? time : time.getTime();
    },
  };
}
