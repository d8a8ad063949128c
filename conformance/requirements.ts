/**
 * The requirements catalogue: every rule of the service description (spec) and of the wire
 * contract that decides what it leaves open, each with a stable id and the section it comes from.
 * Which checks cover a requirement is read from the checks themselves (`conformance/http/`), so the
 * two cannot drift; docs/conformance.md is generated from both (test/conformance keeps it in sync).
 */

export interface Requirement {
  /** Stable: a certificate names it. Never reuse an id for another rule. */
  id: string;
  /** Where the rule comes from: `spec §4 rule 2`, `contract: Uploads`. */
  source: string;
  /** The rule, in one sentence. */
  rule: string;
  /**
   * Why no black-box check covers it, when none does. Such a requirement is reported `not checked`
   * and never counted as passed.
   */
  notChecked?: string;
}

const r = (id: string, source: string, rule: string, notChecked?: string): Requirement => ({ id, source, rule, ...(notChecked ? { notChecked } : {}) });

export const requirements: Requirement[] = [
  // General
  r('GEN-ERROR-BODY', 'spec §7; contract: General', 'Every error answer is JSON `{ error: string, code: string }`.'),
  r('GEN-JSON', 'contract: General', 'JSON answers carry `content-type: application/json; charset=utf-8`; timestamps are ISO 8601 UTC with milliseconds; ids are UUIDs.'),
  r('GEN-UNKNOWN-ROUTE-404', 'contract: General', 'An unknown route under /api/v1 is 404 NOT_FOUND.'),
  r('GEN-METHOD-405', 'contract: General', 'A known path with another method is 405 METHOD_NOT_ALLOWED with an `Allow` header.'),
  r('GEN-BAD-JSON-400', 'contract: General', 'A body that is not valid JSON is 400 INVALID_INPUT.'),
  r('GEN-CONTENT-TYPE-415', 'contract: General', 'An explicit non-JSON content type on a JSON endpoint is 415 UNSUPPORTED_MEDIA_TYPE; a missing one is accepted.'),
  r('GEN-BODY-413', 'contract: General', 'A JSON body over 1 MiB (the default) is 413 PAYLOAD_TOO_LARGE.'),
  r('GEN-UNKNOWN-FIELD-400', 'contract: General', 'Unknown or read-only fields in a body (`status`, `id`, `titel`, ...) are 400 INVALID_INPUT naming the field.'),
  r('GEN-CHECK-ORDER', 'contract: General', 'Checks run in the order 401, 403, 400, 404, 409, 422.'),
  r('GEN-NOT-OWNED-404', 'spec §7; contract: General', "Another user's asset is indistinguishable from a missing one: 404 NOT_FOUND."),
  r('GEN-REQUEST-ID', 'contract: General', 'Every response carries `x-request-id`, echoing a client-sent one of up to 128 safe characters.'),
  r('GEN-RATE-LIMIT-HEADERS', 'contract: General', 'Authenticated responses carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.'),
  r('GEN-RATE-LIMIT-429', 'spec §8; contract: General', 'Past the limit: 429 RATE_LIMITED with `Retry-After`, per caller (another caller is still served).'),
  r('GEN-RATE-LIMIT-SLIDING', 'contract: General', 'Windows slide: no window boundary gives a budget back whole, so a burst straddling a boundary gets no more than the limit; once refused, a caller’s budget comes back at most at the limit per window.'),
  // Health
  r('HEALTH-OK', 'spec §4; contract: Health', 'GET /health needs no token: 200 `{ status: "ok", version, checks: { storage: "ok", blobs: "ok" } }`.'),
  r('HEALTH-DEGRADED-503', 'spec §4; contract: Health', 'A failing check gives 503 with status `degraded`, without internal detail.', 'a black-box suite cannot break the server’s storage'),
  // Authentication
  r('AUTH-401', 'spec §5.3; §7', 'A missing or invalid token is 401 UNAUTHORIZED.'),
  r('AUTH-SCOPE-403', 'spec §5.4; §7', 'A token lacking the scope an operation needs is 403 FORBIDDEN.'),
  r('AUTH-SUSPENDED-403', 'spec §5.4; §7', 'A suspended account is 403 FORBIDDEN.'),
  r('AUTH-REVOKED-401', 'spec §4; contract: Tokens', 'A revoked token is 401 on its very next request, on REST and MCP alike.'),
  r('AUTH-TOKEN-FORMAT', 'spec §2; contract: Tokens', 'A developer token is `smcp_` followed by at least 32 base62 characters and a 6-character checksum.'),
  // Profile
  r('PROFILE-GET', 'spec §4; contract: Profile', 'GET /me returns the profile with the listed fields.'),
  r('PROFILE-PATCH', 'spec §4; contract: Profile', 'PATCH /me changes the fields sent and only those, and returns the updated profile.'),
  r('PROFILE-PATCH-INVALID', 'contract: Profile', 'An invalid profile value (a website that is not an http(s) URL) is 400 naming the field.'),
  // Tokens
  r('TOKENS-LIST', 'spec §4; contract: Tokens', 'GET /tokens is `{ data: [...] }` of `{ id, name, prefix, scopes, created_at, last_used_at, expires_at }`; no secret or hash appears; a token just used has a last_used_at.'),
  r('TOKENS-REVOKE-INPUT', 'contract: Tokens', 'DELETE /tokens with a missing or non-UUID id is 400; an unknown id is 404.'),
  r('TOKENS-REVOKE', 'spec §4; contract: Tokens', 'DELETE /tokens?id= is 200 `{ success, id, revoked_at }` (again 200 when already revoked); the token leaves the list.'),
  // Assets
  r('ASSET-CREATE', 'spec §3, §4; contract: Assets', 'POST /assets is 201 with the asset: status draft, version "1.0.0", pricing_type free, is_free true, visibility public, counters 0.'),
  r('ASSET-CREATE-VALIDATION', 'spec §4, §8; contract: Assets', 'Title 3-200, slug ^[a-z0-9-]+$, price >= 0 with at most 2 decimals, at most 20 tags, category_id an existing category: anything else is 400 INVALID_INPUT naming the field.'),
  r('ASSET-CREATE-TAGS', 'contract: Assets', 'Tags are trimmed and duplicates removed case-insensitively, order kept.'),
  r('ASSET-CREATE-PRICING', 'contract: Assets', '`fixed` needs a price above 0 (else 400); `free` means is_free true.'),
  r('ASSET-CREATE-SLUG-CONFLICT', 'spec §4 rule 2; §7', 'A duplicate slug on create is 409 CONFLICT.'),
  r('ASSET-CREATE-SLUG-GLOBAL', 'contract: Assets', "Slugs are unique across the whole marketplace: another seller's slug is 409 CONFLICT too."),
  r('ASSET-CREATE-NOT-A-SELLER', 'spec §4 rule 1; §7', 'An account that is not an approved seller cannot create: 403 NOT_A_SELLER.'),
  r('ASSET-CREATE-RESTRICTED', 'spec §4 rule 1; §7', 'A restricted account cannot create: 403 ACCOUNT_RESTRICTED.'),
  r('ASSET-GET', 'spec §4; contract: Assets', 'GET /assets/{id} adds `images`, `category` and `file` to the asset.'),
  r('ASSET-GET-MISSING-404', 'spec §4, §7', 'An unknown asset id is 404 NOT_FOUND.'),
  r('ASSET-OWNERSHIP', 'spec §4, §7; contract: General', "Another seller's asset is 404 on read, update, delete, upload and submit, and never listed."),
  r('ASSET-LIST-PAGINATION', 'spec §4; contract: Assets', 'GET /assets is `{ data, pagination: { limit, offset, total, has_more } }`, with limit and offset honoured and total the true count.'),
  r('ASSET-LIST-ORDER', 'contract: Assets', 'The list is newest first (created_at desc, then id desc), stable across pages.'),
  r('ASSET-LIST-FILTER', 'spec §4; contract: Assets', 'The status filter returns only listings in that status.'),
  r('ASSET-LIST-INPUT', 'spec §4, §8; contract: Assets', 'limit outside 1-100, a negative offset or an unknown status is 400 INVALID_INPUT.'),
  r('ASSET-PATCH', 'spec §4; contract: Assets', 'PATCH /assets/{id} changes the fields sent and only those.'),
  r('ASSET-PATCH-EMPTY-400', 'contract: Assets', 'An empty PATCH body is 400 INVALID_INPUT.'),
  r('ASSET-PATCH-STATUS-409', 'contract: Assets', 'PATCH in pending, scheduled or archived is 409 INVALID_STATUS.'),
  r('ASSET-PATCH-PRECONDITION', 'spec §4 rule 8; contract: Assets', 'Setting scheduled_publish_at without the plan feature is 409 PRECONDITION_FAILED.'),
  r('ASSET-DELETE', 'spec §3, §4; contract: Assets', 'DELETE of a draft is 200 `{ success: true, id }`, and the asset is gone.'),
  r('ASSET-DELETE-NOT-DRAFT', 'spec §3, §7; contract: Assets', 'DELETE of a listing that is not a draft is 409 NOT_DRAFT.'),
  r('BATCH-207', 'spec §4; contract: Assets', 'POST /assets/batch creates each item on its own: 207 `{ results, summary }`; a later item with an earlier slug gets 409.'),
  r('BATCH-ALL-FAILED-422', 'spec §4, §7; contract: Assets', 'When every item failed: 422 BATCH_FAILED with the same body.'),
  r('BATCH-SIZE-400', 'spec §4, §8; contract: Assets', 'A batch of 0 or more than 25 items is 400 INVALID_INPUT.'),
  r('BATCH-NOT-A-SELLER', 'contract: Assets', 'A caller who may not create listings gets the single 403 of POST /assets.'),
  // Uploads
  r('UPLOAD-URL', 'spec §4; contract: Uploads', 'POST upload-url is 200 `{ signed_url, storage_path, expires_at, method: "PUT" }`, the path under `assets/{id}/files/`, expiring in the future and within 2 hours.'),
  r('UPLOAD-URL-FILENAME', 'contract: Uploads', 'A filename with `/`, `\\`, control characters or a leading dot is 400 naming filename.'),
  r('UPLOAD-URL-STATUS-409', 'contract: Uploads', 'upload-url in pending or scheduled is 409 INVALID_STATUS.'),
  r('UPLOAD-URL-LIVE-409', 'spec §3, §4 rule 6; contract: Uploads', 'upload-url on a published listing is 409 LISTING_IS_LIVE.'),
  r('UPLOAD-PUT-NO-AUTH', 'spec §4 rule 3', 'The PUT to signed_url succeeds without an Authorization header.'),
  r('UPLOAD-PUT-TAMPERED-403', 'contract: Uploads', 'A PUT with an altered signature is 403.'),
  r('UPLOAD-PUT-OTHER-PATH-403', 'contract: Uploads', 'A signature reused for another path is 403.'),
  r('UPLOAD-PUT-EXPIRED', 'spec §8; contract: Uploads', 'A PUT after the URL expired is 403 and stores nothing.'),
  r('UPLOAD-PUT-TOO-LARGE-413', 'contract: Uploads', 'A body over the configured file limit is 413, nothing partial kept.', 'the limit is configuration (512 MiB by default): too large to send from a test'),
  r('UPLOAD-CONFIRM', 'spec §4 rule 3; contract: Uploads', 'confirm-file is 200 `{ success: true, file: { storage_path, file_size, content_type, confirmed_at } }`, and the asset shows the file.'),
  r('UPLOAD-CONFIRM-INVALID', 'contract: Uploads', 'confirm-file with a path not issued for this asset, before the PUT, or with a wrong file_size is 400 naming the field.'),
  r('UPLOAD-CONFIRM-REPLACES', 'contract: Uploads', 'A new confirmed file replaces the previous one.'),
  r('UPLOAD-CONFIRMED-IMMUTABLE', 'contract: Uploads', 'Confirmed bytes never change: a PUT replayed to the signed URL of a confirmed file changes neither its record nor what confirm-file accepts, before and after submit.'),
  r('UPLOAD-URL-CLOSED', 'contract: Uploads', 'A signed URL stops working when its listing leaves draft: a file PUT to an unused URL of a pending listing is refused (or, where the store cannot refuse it, can never be confirmed).'),
  r('IMAGE-URL', 'spec §4; contract: Uploads', 'images/upload-url is 200 `{ signed_url, storage_path, public_url, expires_at, method }`; extensions other than .webp .png .jpg .jpeg are 400.'),
  r('IMAGE-CONFIRM', 'spec §4 rule 5; contract: Uploads', 'confirm-image is 201 `{ success, image_id, id (same), is_primary, public_url, storage_path, position }`; the first image is primary, later ones are not.'),
  r('IMAGE-CONFIRM-NOT-IMAGE', 'contract: Uploads', 'confirm-image of bytes that are not WebP, PNG or JPEG is 400.'),
  r('IMAGE-ORDER', 'contract: Assets', 'GET /assets/{id} lists images primary first, then by position.'),
  r('IMAGE-LIMIT', 'contract: Uploads', 'At most 10 images per asset: the 11th is 409 CONFLICT.'),
  r('IMAGE-ARRANGE', 'extension: docs/rest.md, Listings', 'PUT /assets/{id}/images/order with every image id once is 200 `{ images }` in that order, the first the only primary, as GET /assets/{id} then lists them; a duplicate, an unknown id or a missing image is 400 INVALID_INPUT naming image_ids and changes nothing.'),
  r('SUBMIT-NO-FILE-422', 'spec §4 rule 7; §7', 'Submit without a confirmed file is 422 NO_FILE.'),
  r('SUBMIT-PENDING', 'spec §3; contract: Uploads', 'Submit of a draft with a file is 200 `{ success: true, id, status: "pending", scheduled_publish_at }`.'),
  r('SUBMIT-SCHEDULED', 'spec §3; contract: Uploads', 'With a future scheduled_publish_at, submit gives status scheduled.'),
  r('SUBMIT-STATUS-409', 'spec §3, §7; contract: Uploads', 'Submit outside draft, rejected and changes_requested is 409 INVALID_STATUS.'),
  r('SUBMIT-PAYOUTS-409', 'spec §3, §4 rule 8; contract: Uploads', 'Submitting a paid listing without payouts connected is 409 PAYOUTS_REQUIRED (after NO_FILE in the order of checks).'),
  r('PUBLISHED-RULES', 'contract: Assets, Uploads', 'A published listing can be updated (200, still published), but not deleted (409 NOT_DRAFT) or submitted (409 INVALID_STATUS).'),
  r('MODERATION-TRANSITIONS', 'contract: Moderation', 'Approve, reject, request changes, archive and release are the only transitions out of review states.', 'not part of the developer API: no surface a vendor must expose'),
  // MCP
  r('MCP-PING', 'spec §4 MCP; contract: MCP', 'ping needs no token and returns an empty result object.'),
  r('MCP-INITIALIZE', 'contract: MCP', 'initialize needs no token and answers `{ protocolVersion, capabilities: { tools }, serverInfo: { name, version } }`.'),
  r('MCP-DISCOVER', 'contract: MCP', 'server/discover answers `{ supportedVersions, capabilities, serverInfo }`.'),
  r('MCP-TOOLS-LIST', 'spec §4 MCP; contract: MCP', 'tools/list needs no token and lists the 13 hosted tools, each with name, description, inputSchema and annotations.'),
  r('MCP-TOOLS-CALL-401', 'spec §4 MCP; contract: MCP', 'tools/call with a missing or bad token is HTTP 401 with `WWW-Authenticate: Bearer` and a JSON-RPC error.'),
  r('MCP-BATCH-AUTH', 'contract: MCP', 'A tools/call inside a batch is authenticated too: no token, no call.'),
  r('MCP-HEALTH-CHECK', 'spec §4 MCP; contract: MCP', "health_check returns `{ ok: true, user_id }` with the caller's id."),
  r('MCP-TOOL-RESULT', 'contract: MCP', 'A tool success is `{ content: [{ type: "text", text: JSON }], structuredContent }`, and acts as the REST operation.'),
  r('MCP-TOOL-REFUSAL', 'contract: MCP', 'A domain refusal is a result with `isError: true` and the REST `{ error, code }`, not an HTTP error.'),
  r('MCP-NOTIFICATION-202', 'contract: MCP', 'A notification (no id) gets 202 and no body.'),
  r('MCP-BATCH', 'contract: MCP', 'A batch array is answered with an array, notifications left out.'),
  r('MCP-JSONRPC-ERRORS', 'contract: MCP', 'Malformed JSON is HTTP 400 with -32700; not JSON-RPC is 400 with -32600; an unknown method -32601; an unknown tool -32602.'),
  r('MCP-VERSION-NEGOTIATION', 'contract: MCP', 'initialize with an unsupported version answers the newest earlier revision; a request declaring an unsupported version in `_meta` gets error -32022 with `data.supported`.'),
  r('MCP-PROTOCOL-VERSION-400', 'contract: MCP', 'An `MCP-Protocol-Version` header naming an unsupported version is 400.'),
  r('MCP-METHOD-405', 'contract: MCP', 'GET and DELETE on /api/mcp are 405.'),
  r('MCP-ORIGIN-403', 'contract: MCP', 'A request whose Origin is present and not allowed is 403 (DNS rebinding).'),
  r('MCP-OAUTH-PROBES-401', 'spec §4 MCP; contract: MCP', 'OAuth discovery probes return 401 with a JSON body.'),
  // Webhooks: our extension (docs/webhooks.md); a server without /webhooks is reported not certified, never failed.
  r('WEBHOOK-ENDPOINT-SECRET', 'extension: docs/webhooks.md, Endpoints', 'POST /webhooks is 201 with the endpoint and a `whsec_` signing secret, which GET /webhooks/{id} and GET /webhooks never show.'),
  r('WEBHOOK-URL-SAFETY', 'extension: docs/webhooks.md, Safety', 'An endpoint URL that is not https, or that is a loopback, private or cloud-metadata address, is 400 INVALID_INPUT naming `url`.'),
  r('WEBHOOK-SCOPES', 'extension: docs/webhooks.md, Endpoints', 'The webhook routes need `webhooks:read` / `webhooks:write`: a token without them is 403 FORBIDDEN.'),
  r('WEBHOOK-TEST-DELIVERY', 'extension: docs/webhooks.md, Endpoints', 'POST /webhooks/{id}/test is 202 with a `pending` delivery of a `webhook.test` event, which GET /webhooks/{id}/deliveries lists.'),
  r('WEBHOOK-SIGNED-DELIVERY', 'extension: docs/webhooks.md, Signing', 'Deliveries are POSTed signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), at least once, retried with backoff.', 'a black-box suite runs no receiver that the server may reach (its targets must be public https)'),
  // Versions of a published listing: our extension (docs/moderation.md, "Versions"); a server without them is reported not certified.
  r('VERSION-CREATE', 'extension: contract, Versions of a published listing', 'POST /assets/{id}/versions on a published listing is 201 with a draft version; submitted with its file it is pending (approved on a server that approves every submission); withdraw ends it.'),
  r('VERSION-RULES', 'extension: contract, Versions of a published listing', 'A second open version is 409 CONFLICT; a version string not of [0-9A-Za-z.+-] is 400 naming version; submit without a file is 422 NO_FILE.'),
  r('VERSION-FILE', 'extension: contract, Versions of a published listing', "A version's file goes through its upload-url, the signed PUT and its confirm-file; a wrong sha256 is 422 CHECKSUM_MISMATCH where the server computed the digest."),
  r('VERSION-LIVE-UNCHANGED', 'extension: contract, Versions of a published listing', 'While a version waits for review the listing stays published with its version and file, and its owner sees pending_version.'),
  // Model-based
  r('MODEL-SEQUENCES', 'spec §3; contract: Assets, Uploads', 'Any sequence of create, batch, patch, upload, images, submit, delete, list and get leaves the listings as the reference model says.'),
];

export const requirementIds = new Set(requirements.map((requirement) => requirement.id));
