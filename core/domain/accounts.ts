/** The seller states of an account: `approved` makes it a seller. Every schema and type of them reads this list. */
export const sellerStatuses = ['none', 'pending', 'approved'] as const;
export type SellerStatus = (typeof sellerStatuses)[number];

/** What a username may be, and the words that say so. */
export const usernamePattern = /^[A-Za-z0-9_.-]{1,40}$/;
export const usernameRule = '1 to 40 letters, digits, _ . or -';
