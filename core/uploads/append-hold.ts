/**
 * The hold one request has on an upload while it writes (docs/uploads.md, "One writer at a time"):
 * the upload state's lease, taken for this request alone (its holder names the instance and the
 * request, so a second request to the same instance is refused like one to another instance),
 * renewed while the request runs, and given up once it is lost.
 *
 * A hold is lost when a renewal finds the lease gone (the upload was terminated or its listing
 * deleted: the row went with it) or taken, and also when it could not be renewed for two thirds
 * of a lease (the storage unreachable): past that the lease may lapse and another request take the
 * upload, so the holder stops writing a third of a lease before that can happen.
 */
import { ApiError } from '../errors.js';
import type { ClockPort } from '../ports/clock.js';
import type { UploadStatePort } from '../ports/upload-state.js';

export interface UploadHold {
  /** The lease's holder: fences the advance of the offset (UploadStatePort.advance). */
  readonly holder: string;
  /** Throws UploadHoldLostError once the hold is lost: the request must write no more. */
  check(): void;
  /** Whether the hold was lost (a renewal found the lease gone or taken, or none succeeded in time). */
  lost(): boolean;
  /** Stops renewing and gives the lease back. Never throws: a lease not given back lapses. */
  release(): Promise<void>;
}

/** Thrown into an upload's body once its hold is lost: the store stops reading it. */
export class UploadHoldLostError extends Error {
  constructor() {
    super('the upload hold was lost');
    this.name = 'UploadHoldLostError';
  }
}

/** 423 UPLOAD_LOCKED, with a Retry-After of a third of a lease: a live holder renews by then, a dead one's lease lapses within a lease. */
export function uploadLocked(leaseMs: number): ApiError {
  return new ApiError('UPLOAD_LOCKED', undefined, { headers: { 'retry-after': String(Math.max(1, Math.ceil(leaseMs / 3000))) } });
}

/**
 * Takes the upload's lease for `holder` (unique to the request) for `leaseMs`; null when another
 * request holds it. The caller MUST release the hold it got.
 */
export async function holdUpload(states: UploadStatePort, clock: ClockPort, storagePath: string, holder: string, leaseMs: number): Promise<UploadHold | null> {
  const takenAt = clock.now();
  if (!(await states.lease(storagePath, holder, takenAt, takenAt + leaseMs))) return null;
  let renewedAt = takenAt;
  let gone = false;
  const renew = setInterval(() => {
    const at = clock.now();
    states.lease(storagePath, holder, at, at + leaseMs).then(
      (held) => {
        if (held) renewedAt = Math.max(renewedAt, at);
        else gone = true;
      },
      // The storage did not answer: the deadline in lost() decides.
      () => undefined,
    );
  }, leaseMs / 3);
  const lost = () => gone || clock.now() - renewedAt > (leaseMs * 2) / 3;
  return {
    holder,
    lost,
    check() {
      if (lost()) throw new UploadHoldLostError();
    },
    async release() {
      clearInterval(renew);
      // Not given back, it lapses after leaseMs: the next request waits that long (423) and nothing is lost.
      await states.release(storagePath, holder).catch(() => undefined);
    },
  };
}
