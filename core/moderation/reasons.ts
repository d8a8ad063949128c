import { invalidInput } from '../errors.js';

/** The longest reason a moderator may give the seller. */
export const reasonMaxLength = 2000;

/** A moderator's reason, trimmed: 400 naming `reason` when it is empty or too long. */
export function checkReason(reason: unknown): string {
  if (typeof reason !== 'string' || reason.trim().length === 0) throw invalidInput('reason', 'must be a non-empty string');
  const trimmed = reason.trim();
  if (trimmed.length > reasonMaxLength) throw invalidInput('reason', `must be at most ${reasonMaxLength} characters`);
  return trimmed;
}
