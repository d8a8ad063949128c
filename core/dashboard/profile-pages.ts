/**
 * The seller's profile (docs/dashboard.md, "Profile"): what GET /api/v1/me answers (getProfile),
 * with its writable fields in a form (../shared/spec/contract.md, "Profile": display_name, bio,
 * website, socials, hire, country) that saves through the operation PATCH /me runs
 * (updateProfile), sending only the fields that changed; an emptied field is null. A refusal is
 * the form again with the operation's message (naming the field) and what was typed. Every value
 * goes through the escaping `html` template.
 */
import { isApiError, statusOf } from '../errors.js';
import type { OperationContext } from '../operations/context.js';
import { getProfile, updateProfile } from '../operations/profile.js';
import { runOperation } from '../pipeline/run-operation.js';
import { socialKeys, type Profile } from '../schemas/profile.js';
import { html, type Html } from './html.js';
import { refusal } from './listing-views.js';
import { formToken, layout, when, type Place } from './pages.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute } from './routes.js';

/** The form's text fields by their names (`socials.github`, `hire.rate`), as typed; `hire.available` is its checkbox. */
type ProfileFields = Record<string, string> & { 'hire.available': string };

const textNames = ['display_name', 'bio', 'website', 'country', ...socialKeys.map((key) => `socials.${key}`), 'hire.rate', 'hire.contact'] as const;

/** A field's value in the profile, by its form name. */
function valueOf(profile: Profile, name: string): string | null {
  const [group, key] = name.split('.') as [string, string | undefined];
  if (group === 'socials') return profile.socials[key as (typeof socialKeys)[number]];
  if (group === 'hire') return profile.hire[key as 'rate' | 'contact'];
  return profile[group as 'display_name' | 'bio' | 'website' | 'country'];
}

function fieldsOf(profile: Profile): ProfileFields {
  const fields: Record<string, string> = Object.fromEntries(textNames.map((name) => [name, valueOf(profile, name) ?? '']));
  return { ...fields, 'hire.available': profile.hire.available ? 'on' : '' };
}

/** The form as typed (a textarea's CRLF as the API's LF, single-line fields trimmed). */
function fieldsFrom(form: URLSearchParams): ProfileFields {
  const fields: Record<string, string> = Object.fromEntries(textNames.map((name) => [name, name === 'bio' ? (form.get(name) ?? '').replace(/\r\n?/g, '\n') : (form.get(name) ?? '').trim()]));
  return { ...fields, 'hire.available': form.get('hire.available') === 'on' ? 'on' : '' };
}

/** updateProfile's input: only what differs from the profile (within socials and hire, only the keys that differ); empty text is null. */
function updateInput(fields: ProfileFields, current: Profile): Record<string, unknown> {
  const changes: Record<string, Record<string, unknown> | unknown> = {};
  const groups: Record<string, Record<string, unknown>> = {};
  for (const name of textNames) {
    const text = name === 'country' ? fields[name]!.toUpperCase() : fields[name]!;
    if (text === (valueOf(current, name) ?? '')) continue;
    const [group, key] = name.split('.') as [string, string | undefined];
    if (key) (groups[group] ??= {})[key] = text === '' ? null : text;
    else changes[group] = text === '' ? null : text;
  }
  const available = fields['hire.available'] === 'on';
  if (available !== current.hire.available) (groups.hire ??= {}).available = available;
  return { ...changes, ...groups };
}

const doneNotes: Record<string, string> = { saved: 'Profile saved.', unchanged: 'Nothing changed.' };
const noteOf = (done: string | null) => (done !== null && Object.hasOwn(doneNotes, done) ? doneNotes[done]! : null);

/** Text typed, shown again: a NUL (which the operation refuses) is never sent back in the page. */
const typed = (text: string) => text.replace(/\u0000/g, '\ufffd');

function profilePage(place: Place, profile: Profile, fields: ProfileFields, note: string | null, message: string | null): Html {
  const text = (name: string, label: string, attributes: { max: number; type?: string; size?: number }) =>
    html`<p><label>${label} <input name="${name}" type="${attributes.type ?? 'text'}" maxlength="${attributes.max}" size="${attributes.size ?? 50}" value="${typed(fields[name] ?? '')}"></label></p>`;
  return layout(place, 'Profile', html`${note && html`<p role="status">${note}</p>`}${refusal(message)}
<dl class="fields"><dt>Username</dt><dd>${profile.username}</dd><dt>Seller</dt><dd>${profile.seller_status}${profile.is_restricted && ', restricted'}</dd>
<dt>Payouts</dt><dd>${profile.payouts_connected ? 'connected' : 'not connected'}</dd><dt>Plan</dt><dd>${profile.subscription_tier}</dd>
<dt>Avatar</dt><dd>${profile.avatar_url ? html`<img class="thumb" src="${profile.avatar_url}" alt="" width="48" height="48">` : 'none'}</dd><dt>Joined</dt><dd>${when(profile.created_at, '')}</dd><dt>Updated</dt><dd>${when(profile.updated_at, '')}</dd></dl>
<form method="post" action="${place.base}/profile">${formToken(place)}
${text('display_name', 'Display name', { max: 80 })}
<p><label>Bio<br><textarea name="bio" rows="6" cols="70" maxlength="1000">${typed(fields.bio ?? '')}</textarea></label></p>
${text('website', 'Website', { max: 200, type: 'url' })}
${text('country', 'Country', { max: 2, size: 4 })} <small>ISO 3166-1 alpha-2, such as DE or US; empty for none</small>
<fieldset><legend>Socials</legend><small>a handle or an http or https URL; empty for none</small>
${socialKeys.map((key) => text(`socials.${key}`, key, { max: 200 }))}
</fieldset>
<fieldset><legend>Hire</legend>
<p><label><input type="checkbox" name="hire.available" value="on"${fields['hire.available'] === 'on' ? html` checked` : ''}> Available for hire</label></p>
${text('hire.rate', 'Rate', { max: 100 })}
${text('hire.contact', 'Contact', { max: 200 })}
</fieldset>
<p><button type="submit">Save</button></p>
</form>`);
}

const profileOf = async (ctx: OperationContext) => (await runOperation(ctx, getProfile, {})).value as Profile;

export const profileRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/profile',
    role: 'account',
    async handle({ ctx, place, query }) {
      const profile = await profileOf(ctx);
      return page(200, profilePage(place, profile, fieldsOf(profile), noteOf(query.get('done')), null));
    },
  },
  {
    method: 'POST',
    path: '/profile',
    role: 'account',
    async handle({ ctx, place, form }) {
      const current = await profileOf(ctx);
      const fields = fieldsFrom(form);
      const changes = updateInput(fields, current);
      if (Object.keys(changes).length === 0) return redirect(`${place.base}/profile?done=unchanged`);
      try {
        await runOperation(ctx, updateProfile, changes);
      } catch (error) {
        // Not dropped: a refusal is the form again, with its message and what was typed.
        if (!isApiError(error)) throw error;
        return page(statusOf(error.code), profilePage(place, current, fields, null, error.message));
      }
      return redirect(`${place.base}/profile?done=saved`);
    },
  },
];
