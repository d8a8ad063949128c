/**
 * The admin surface's actions (/api/admin): one table for the HTTP surface, its OpenAPI document,
 * `marketkit admin` and the local MCP process's admin tools. The moderators' actions come from the
 * moderation table (core/moderation/moderation.ts).
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { Admin } from './accounts.js';
import { statusesAllowing, transition } from '../domain/asset-states.js';
import { ApiError, type ErrorCode } from '../errors.js';
import { moderationActions, type Moderation, type ModerationAction } from '../moderation/moderation.js';
import type { Ports, Settings } from '../operations/context.js';
import { assetView, categoryView, profileView, tokenView } from '../views.js';
import { revokeTokenWithEvent } from '../changes/outbox-events.js';
import type { AccountRecord } from '../ports/storage.js';
import { AccountChangesBody, AccountInputSchema } from '../schemas/account.js';
import { AssetSchema, CategorySchema } from '../schemas/asset.js';
import { webhookDeliveryView, webhookEndpointView } from '../operations/webhooks.js';
import { moderationQueue, QueueQuery, QueueSchema } from './queue.js';
import { issueSignInLink, LoginLinkBody, LoginLinkSchema } from './sign-in-links.js';
import { AccountListSchema, AdminAccountSchema, AdminTokenListSchema, AdminWebhooksSchema, CategoryCreateBody, CategoryListSchema, CategoryRenameBody, PageQuery, ReasonBody, ReleasedSchema, RevokedSchema, adminPageDefault } from './schemas.js';
import { readPage } from '../operations/list-cursor.js';
import { versionActions } from './version-actions.js';
import { createVersionModeration } from '../operations/version-moderation.js';
import { versionView } from '../versions/version-records.js';

export { AdminAccountSchema } from './schemas.js';

/** What an admin action runs against: the same whether it came over HTTP or from `marketkit admin`. */
export interface AdminContext {
  ports: Ports;
  settings: Pick<Settings, 'storageQuotaBytes' | 'dashboard'>;
  admin: Admin;
  moderation: Moderation;
  /** The site's address as the request reached it (HTTP), or as the operator set it (MARKETKIT_SITE_URL for marketkit admin): where sign-in links point. */
  siteUrl?: string;
}

// ---- The actions: one table for the HTTP surface, its OpenAPI document and the CLI ----

export interface AdminAction<B extends TSchema = TSchema> {
  /** The CLI's name: `marketkit admin <name>`; also the operationId (camel-cased). */
  name: string;
  summary: string;
  method: 'GET' | 'POST';
  /** Below /api/admin, with `{param}` placeholders in order. */
  path: string;
  /** What each path parameter is, in words (for --help and OpenAPI). */
  params?: Record<string, string>;
  body?: B;
  query?: TSchema;
  response: TSchema;
  errors: ErrorCode[];
  tag: 'Moderation' | 'Accounts' | 'Categories' | 'Tokens' | 'Webhooks';
  run(context: AdminContext, params: Record<string, string>, input: Static<B>): Promise<unknown>;
}

const action = <B extends TSchema>(spec: AdminAction<B>): AdminAction => spec as unknown as AdminAction;

const accountParam = { account: 'The account id or username.' };

async function accountOf(context: AdminContext, idOrUsername: string): Promise<AccountRecord> {
  const account = (await context.ports.storage.getAccount(idOrUsername)) ?? (await context.ports.storage.findAccountByUsername(idOrUsername));
  if (!account) throw new ApiError('NOT_FOUND', `No account "${idOrUsername}" (an id or a username).`);
  return account;
}

export const adminAccountView = async (context: AdminContext, account: AccountRecord): Promise<Static<typeof AdminAccountSchema>> => ({
  ...profileView(account),
  is_suspended: account.is_suspended,
  is_moderator: account.is_moderator,
  is_operator: account.is_operator,
  plan_features: [...account.plan_features],
  storage_bytes: await context.ports.storage.storageUse(account.id),
  storage_quota_bytes: context.settings.storageQuotaBytes,
});

/** A moderator's action on one listing, from the moderation table: POST /assets/{id}/<name>, answering the listing. */
function decision(act: ModerationAction): AdminAction {
  const spec = moderationActions[act];
  const [from] = statusesAllowing(act);
  const outcome = transition(from!, act);
  return action({
    name: spec.name,
    summary: `${spec.summary} (${from} -> ${'next' in outcome ? outcome.next : from})`,
    method: 'POST',
    path: `/assets/{id}/${spec.name}`,
    params: { id: 'The listing id.' },
    ...(spec.reason ? { body: ReasonBody } : {}),
    response: AssetSchema,
    errors: ['NOT_FOUND', 'INVALID_STATUS'],
    tag: 'Moderation',
    run: async (context, { id }, input) => assetView(await context.moderation.decide(act, id!, (input as { reason?: string }).reason)),
  });
}

/** How many failing deliveries the webhooks action shows. */
const failingShown = 50;

export const adminActions: AdminAction[] = [
  action({
    name: 'queue',
    summary: 'The review queue: new listings and new versions of published listings waiting for review (pending), oldest submission first, each with its kind',
    method: 'GET',
    path: '/moderation/queue',
    query: QueueQuery,
    response: QueueSchema,
    errors: [],
    tag: 'Moderation',
    run: (context, _params, input: Static<typeof QueueQuery>) => moderationQueue(context.ports, input),
  }),
  ...(Object.keys(moderationActions) as ModerationAction[]).map(decision),
  ...versionActions.map((act) => action(act as unknown as AdminAction)),
  action({
    name: 'release-due',
    summary: 'Release every scheduled listing whose time has come (scheduled -> pending) and make every due scheduled version live; what the scheduler runs',
    method: 'POST',
    path: '/moderation/release-due',
    response: ReleasedSchema,
    errors: [],
    tag: 'Moderation',
    run: async (context) => ({
      released: (await context.moderation.releaseDue()).map(assetView),
      versions: (await createVersionModeration(context.ports).releaseDue()).map(versionView),
    }),
  }),
  action({
    name: 'accounts',
    summary: 'Every account by username, a page at a time, with its seller, restriction, suspension, payout and plan state',
    method: 'GET',
    path: '/accounts',
    query: PageQuery,
    response: AccountListSchema,
    errors: [],
    tag: 'Accounts',
    async run(context, _params, input: Static<typeof PageQuery>) {
      const { storage } = context.ports;
      const { items, ...page } = await readPage('accounts', input, adminPageDefault, (limit, offset, after) => storage.listAccounts(limit, offset, after), (a) => a.username);
      return { data: await Promise.all(items.map((account) => adminAccountView(context, account))), ...page };
    },
  }),
  action({
    name: 'create-account',
    summary: 'Create an account (a seller by default: seller_status approved); then make it a token with marketkit token create',
    method: 'POST',
    path: '/accounts',
    body: AccountInputSchema,
    response: AdminAccountSchema,
    errors: ['CONFLICT'],
    tag: 'Accounts',
    async run(context, _params, input) {
      const taken = () => new ApiError('CONFLICT', `The username "${input.username}" is taken.`, { details: [{ path: 'username', message: 'is taken' }] });
      if (await context.ports.storage.findAccountByUsername(input.username)) throw taken();
      let created;
      try {
        created = await context.admin.createAccount(input);
      } catch (error) {
        // Another request took the name between the look and the insert.
        if (await context.ports.storage.findAccountByUsername(input.username)) throw taken();
        throw error;
      }
      return adminAccountView(context, await accountOf(context, created.id));
    },
  }),
  action({
    name: 'account',
    summary: 'An account with its seller, restriction, suspension, payout and plan state',
    method: 'GET',
    path: '/accounts/{account}',
    params: accountParam,
    response: AdminAccountSchema,
    errors: ['NOT_FOUND'],
    tag: 'Accounts',
    run: async (context, { account }) => adminAccountView(context, await accountOf(context, account!)),
  }),
  action({
    name: 'update-account',
    summary: 'Approve as seller, restrict, suspend, connect payouts, set the plan tier and features',
    method: 'POST',
    path: '/accounts/{account}',
    params: accountParam,
    body: AccountChangesBody,
    response: AdminAccountSchema,
    errors: ['NOT_FOUND'],
    tag: 'Accounts',
    async run(context, { account }, input) {
      const found = await accountOf(context, account!);
      await context.admin.updateAccount(found.id, input);
      return adminAccountView(context, await accountOf(context, found.id));
    },
  }),
  action({
    name: 'categories',
    summary: 'Every category, by name',
    method: 'GET',
    path: '/categories',
    response: CategoryListSchema,
    errors: [],
    tag: 'Categories',
    run: async (context) => ({ data: (await context.ports.storage.listCategories()).map(categoryView) }),
  }),
  action({
    name: 'create-category',
    summary: 'Create a category (its slug is permanent)',
    method: 'POST',
    path: '/categories',
    body: CategoryCreateBody,
    response: CategorySchema,
    errors: ['CONFLICT'],
    tag: 'Categories',
    async run(context, _params, input) {
      if ((await context.ports.storage.listCategories()).some((c) => c.slug === input.slug)) throw new ApiError('CONFLICT', 'This category slug is already taken.');
      return context.admin.createCategory(input);
    },
  }),
  action({
    name: 'rename-category',
    summary: 'Give a category a new name (its id and slug stay)',
    method: 'POST',
    path: '/categories/{id}',
    params: { id: 'The category id.' },
    body: CategoryRenameBody,
    response: CategorySchema,
    errors: ['NOT_FOUND'],
    tag: 'Categories',
    async run(context, { id }, input) {
      const renamed = await context.ports.storage.renameCategory(id!, input.name);
      if (!renamed) throw new ApiError('NOT_FOUND', 'No category with this id.');
      return categoryView(renamed);
    },
  }),
  action({
    name: 'login-link',
    summary: 'A one-time sign-in link to the dashboard for the account: it works once, for 15 minutes (dashboard.signInLinkSeconds)',
    method: 'POST',
    path: '/accounts/{account}/login-link',
    params: accountParam,
    body: LoginLinkBody,
    response: LoginLinkSchema,
    errors: ['NOT_FOUND', 'PRECONDITION_FAILED'],
    tag: 'Accounts',
    run: async (context, { account }, input: Static<typeof LoginLinkBody>) =>
      issueSignInLink(context.ports, context.settings, await accountOf(context, account!), input.site_url ?? context.siteUrl ?? 'http://localhost:8787'),
  }),
  action({
    name: 'tokens',
    summary: 'The developer tokens of an account that are not revoked, newest first (never their secrets)',
    method: 'GET',
    path: '/accounts/{account}/tokens',
    params: accountParam,
    response: AdminTokenListSchema,
    errors: ['NOT_FOUND'],
    tag: 'Tokens',
    async run(context, { account }) {
      const found = await accountOf(context, account!);
      return { data: (await context.ports.storage.listTokens(found.id)).map(tokenView) };
    },
  }),
  action({
    name: 'revoke-token',
    summary: 'Revoke a token of an account: it stops working on its next request, on REST and MCP',
    method: 'POST',
    path: '/accounts/{account}/tokens/{token}/revoke',
    params: { ...accountParam, token: 'The token id (from tokens).' },
    response: RevokedSchema,
    errors: ['NOT_FOUND'],
    tag: 'Tokens',
    async run(context, { account, token }) {
      const found = await accountOf(context, account!);
      const current = await context.ports.storage.getToken(token!);
      // One already revoked is gone as far as anyone can see (tokens no longer lists it).
      if (!current || current.account_id !== found.id || current.revoked_at) throw new ApiError('NOT_FOUND', `${found.username} has no token ${token}.`);
      const at = new Date(context.ports.clock.now()).toISOString();
      const revoked = await revokeTokenWithEvent(context.ports, found.id, token!, at);
      if (!revoked) throw new ApiError('NOT_FOUND', `${found.username} has no token ${token}.`);
      return { success: true, id: revoked.id, revoked_at: revoked.revoked_at };
    },
  }),
  action({
    name: 'webhooks',
    summary: "An account's webhook endpoints and its deliveries that are failing (retrying or failed)",
    method: 'GET',
    path: '/accounts/{account}/webhooks',
    params: accountParam,
    response: AdminWebhooksSchema,
    errors: ['NOT_FOUND'],
    tag: 'Webhooks',
    async run(context, { account }) {
      const found = await accountOf(context, account!);
      const [endpoints, failing] = await Promise.all([
        context.ports.storage.listWebhookEndpoints(found.id),
        context.ports.storage.listWebhookDeliveries({ accountId: found.id, statuses: ['retrying', 'failed'], limit: failingShown, offset: 0 }),
      ]);
      return { endpoints: endpoints.map(webhookEndpointView), failing: failing.items.map(webhookDeliveryView), failing_total: failing.total };
    },
  }),
];
