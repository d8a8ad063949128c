/**
 * The review history a seller reads (docs/dashboard.md, "A listing's page"): each decision on a
 * listing or a version is stored as its `review`, and the decisions before it ride along in
 * `review.earlier`, written in the same compare-and-set as the decision itself, so that the
 * history can never disagree with the status. Bounded: the oldest beyond the limit are dropped.
 */

/** The decisions kept before the last one. */
export const reviewHistoryLimit = 20;

/** `decision` as the new review, the previous review (and its own earlier ones) moved into its `earlier`. */
export function nextReview<D extends object>(previous: (D & { earlier?: D[] }) | null, decision: D): D & { earlier: D[] } {
  if (!previous) return { ...decision, earlier: [] };
  const { earlier = [], ...last } = previous;
  return { ...decision, earlier: [...earlier, last as D].slice(-reviewHistoryLimit) };
}

/** A stored review's earlier decisions, none for one written before the history was kept. */
export const earlierOf = <D>(review: { earlier?: D[] }): D[] => (review.earlier ?? []).map((decision) => ({ ...decision }));

/** A version's review as the API shows it: its earlier decisions always there (none for an older review). */
export const reviewView = <R extends { earlier?: unknown[] }>(review: R | null) => (review ? { ...review, earlier: earlierOf(review) } : null);
