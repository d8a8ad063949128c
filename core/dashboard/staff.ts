/**
 * What a moderator or an operator does in the dashboard is an admin action (core/admin/actions.ts),
 * run through `runAdminAction` as the admin API and `marketkit admin` run it (one copy of every
 * rule), after the route's role was checked on the server (surface.ts); a change is then written to
 * the audit log (core/ports/audit.ts): who, what, on what, the reason, when. A read is not.
 *
 * The entry is written after the action succeeds (an action refused leaves none); should the storage
 * fail between the two, the action stands without its entry and the page says so (a 503 the
 * moderator sees), so the gap is never silent.
 */
import { adminActions, type AdminContext } from '../admin/actions.js';
import { runAdminAction } from '../admin/admin-operation.js';
import { ApiError } from '../errors.js';
import { auditOf } from '../ports/audit.js';
import type { SignedInRequest } from './routes.js';

const byName = new Map(adminActions.map((act) => [act.name, act]));

/** The admin context of a dashboard request: the marketplace's parts, and the dashboard's address for links. */
export function adminContextOf(request: SignedInRequest): AdminContext {
  const { parts, exchange } = request;
  return { ports: parts.ports, settings: parts.settings, admin: parts.admin, moderation: parts.moderation, siteUrl: exchange.siteUrl };
}

/** Reads through an admin action (the queue, an account, a version's review): nothing is logged. */
export function staffRead<T>(request: SignedInRequest, name: string, params: Record<string, string>, input?: Record<string, unknown>): Promise<T> {
  const act = byName.get(name);
  if (!act || act.method !== 'GET') throw new Error(`No admin read "${name}" (core/admin/actions.ts).`);
  return runAdminAction(adminContextOf(request), act, params, input) as Promise<T>;
}

/** Changes through an admin action, then writes the audit log's entry for it (the reason: the action's own, or the page's note). */
export async function staffAct<T>(request: SignedInRequest, name: string, params: Record<string, string>, input: Record<string, unknown> | undefined, subject: string, note?: string): Promise<T> {
  const act = byName.get(name);
  if (!act || act.method !== 'POST') throw new Error(`No admin action "${name}" (core/admin/actions.ts).`);
  const audit = auditOf(request.parts.ports.storage);
  if (!audit) throw new ApiError('NOT_FOUND', 'This storage keeps no audit log (storage.audit): moderators and operators act through marketkit admin or the admin API.');
  const result = (await runAdminAction(adminContextOf(request), act, params, input)) as T;
  const { ports } = request.parts;
  const { account } = request.ctx.caller;
  const reason = typeof input?.reason === 'string' ? input.reason : note || null;
  await audit.appendAudit({ id: ports.ids.uuid(), at: new Date(ports.clock.now()).toISOString(), actor_id: account.id, actor: account.username, action: name, subject, reason });
  return result;
}
