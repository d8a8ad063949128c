/** The seller states of an account: `approved` makes it a seller. Every schema and type of them reads this list. */
export const sellerStatuses = ['none', 'pending', 'approved'] as const;
export type SellerStatus = (typeof sellerStatuses)[number];

/**
 * What a username may be, and the words that say so. Not shaped like a UUID: an admin lookup takes
 * an account's id or its username, and a username equal to another account's id would reach that
 * account. Usernames are unique ignoring ASCII case (every store's index and lookup; docs/moderation.md).
 */
export const usernamePattern = /^(?![0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$)[A-Za-z0-9_.-]{1,40}$/;
export const usernameRule = '1 to 40 letters, digits, _ . or -, not shaped like a UUID';
