/**
 * The listing pages' forms (docs/dashboard.md, "Listings"): what a seller typed, as it was typed
 * (to show it again beside a refusal), and as the input of the operations REST runs (createAsset,
 * updateAsset). Only the spelling of a form changes here (a comma list of tags, a price in a text
 * box, a UTC time from a datetime-local field); every rule is the operation's own.
 */
import { invalidInput } from '../errors.js';
import type { Asset } from '../schemas/asset.js';

/** A listing's fields as the form holds them: text, as typed. */
export interface ListingFields {
  title: string;
  slug: string;
  description: string;
  pricing_type: string;
  price: string;
  tags: string;
  visibility: string;
  category_id: string;
  /** `YYYY-MM-DDTHH:MM` in UTC, as a datetime-local field holds it; null when the form has no schedule field. */
  scheduled_publish_at: string | null;
}

export const emptyFields: ListingFields = { title: '', slug: '', description: '', pricing_type: 'free', price: '', tags: '', visibility: 'public', category_id: '', scheduled_publish_at: null };

/** A stored timestamp as a datetime-local field shows it (UTC, to the minute). */
const localOf = (iso: string | null): string => (iso ? iso.slice(0, 16) : '');

/** The listing's fields, for its edit form. */
export function fieldsOf(asset: Asset, schedules: boolean): ListingFields {
  return {
    title: asset.title,
    slug: asset.slug,
    description: asset.description ?? '',
    pricing_type: asset.pricing_type,
    price: asset.price === null ? '' : String(asset.price),
    tags: asset.tags.join(', '),
    visibility: asset.visibility,
    category_id: asset.category_id ?? '',
    scheduled_publish_at: schedules ? localOf(asset.scheduled_publish_at) : null,
  };
}

/** A browser sends a textarea's line breaks as CRLF: kept as the API's LF, so an unchanged description stays unchanged. */
const lines = (text: string) => text.replace(/\r\n?/g, '\n');

/** The form as typed (the schedule only when the page offered it). */
export function fieldsFrom(form: URLSearchParams, schedules: boolean): ListingFields {
  const get = (name: string) => form.get(name) ?? '';
  return {
    title: get('title'),
    slug: get('slug').trim(),
    description: lines(get('description')),
    pricing_type: get('pricing_type') || 'free',
    price: get('price').trim(),
    tags: get('tags'),
    visibility: get('visibility') || 'public',
    category_id: get('category_id'),
    scheduled_publish_at: schedules ? get('scheduled_publish_at').trim() : null,
  };
}

/** The price box: empty is no price; anything else must read as a number (the operation checks its range and decimals). */
function priceOf(text: string): number | null {
  if (text === '') return null;
  const value = Number(text);
  if (!Number.isFinite(value)) throw invalidInput('price', 'must be a number, such as 9.99');
  return value;
}

/** The tags box: a comma-separated list (the operation trims them and removes duplicates). */
const tagsOf = (text: string): string[] => text.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');

/** A datetime-local value, read as UTC; empty is no schedule. Anything else goes to the operation as typed (which refuses it, naming the field). */
function scheduleOf(text: string): string | null {
  if (text === '') return null;
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(text)) return `${text}:00.000Z`;
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/.test(text)) return `${text}Z`;
  return text;
}

/** createAsset's input: the fields given (an empty box is left out, so the operation's default holds). */
export function createInput(fields: ListingFields): Record<string, unknown> {
  const price = priceOf(fields.price);
  const tags = tagsOf(fields.tags);
  const schedule = fields.scheduled_publish_at === null ? null : scheduleOf(fields.scheduled_publish_at);
  return {
    title: fields.title,
    slug: fields.slug,
    ...(fields.description !== '' ? { description: fields.description } : {}),
    pricing_type: fields.pricing_type,
    ...(price !== null ? { price } : {}),
    ...(tags.length ? { tags } : {}),
    visibility: fields.visibility,
    ...(fields.category_id !== '' ? { category_id: fields.category_id } : {}),
    ...(schedule !== null ? { scheduled_publish_at: schedule } : {}),
  };
}

/**
 * updateAsset's input: only the fields that differ from the listing (as a PATCH sends only what
 * changes), so saving an untouched field never meets a rule it did not touch (a paid price without
 * payouts, a schedule without the plan feature). Empty when nothing changed.
 */
export function updateInput(fields: ListingFields, current: Asset): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (fields.title.trim() !== current.title) changes.title = fields.title;
  if (fields.slug !== current.slug) changes.slug = fields.slug;
  if (fields.description !== (current.description ?? '')) changes.description = fields.description === '' ? null : fields.description;
  const price = priceOf(fields.price);
  if (fields.pricing_type !== current.pricing_type || price !== current.price) Object.assign(changes, { pricing_type: fields.pricing_type, price });
  const tags = tagsOf(fields.tags);
  if (tags.join('\n') !== current.tags.join('\n')) changes.tags = tags;
  if (fields.visibility !== current.visibility) changes.visibility = fields.visibility;
  if (fields.category_id !== (current.category_id ?? '')) changes.category_id = fields.category_id === '' ? null : fields.category_id;
  if (fields.scheduled_publish_at !== null && fields.scheduled_publish_at !== localOf(current.scheduled_publish_at)) changes.scheduled_publish_at = scheduleOf(fields.scheduled_publish_at);
  return changes;
}
