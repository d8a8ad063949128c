/**
 * What an operation declares about how it is served, beside its schemas and its `run`: its REST
 * binding and its MCP tool text, as the MCP SDK's `registerTool` keeps title, description,
 * schemas and annotations beside the handler. The REST table (core/http/routes.ts), the hosted
 * tools (core/mcp/tools.ts), the local process's tools (cli/mcp-tools.ts), the OpenAPI document
 * and the typed client are derived from these, so adding an operation is one declaration
 * (docs/architecture.md, "Adding an operation").
 */

/** The HTTP methods a route can have (core/pipeline/router.ts matches the same). */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** Where REST serves an operation: a path under /api/v1 and what its answer's status is. */
export interface RestBinding {
  method: HttpMethod;
  /** The path under `/api/v1`, with `:name` parameters: `/assets/:id`. */
  path: string;
  /** Path parameter -> input field of the operation. */
  params?: Record<string, string>;
  /** Whether the operation's input fields come from the query string (else from the JSON body). */
  query?: boolean;
  /** The success status (200 without one); a function where it depends on the result. */
  status?: number | ((result: never) => number);
  /** With a status function: every status it can give, for the OpenAPI document. */
  successStatuses?: number[];
  /** The OpenAPI tag it is listed under. */
  tag: 'Profile' | 'Assets' | 'Uploads' | 'Tokens' | 'Categories' | 'Studio' | 'Webhooks';
}

/**
 * MCP's behaviour hints, all four on every tool so that no client has to guess a default. As MCP
 * defines them: readOnlyHint, the tool changes nothing; destructiveHint, it may overwrite or remove
 * what was there (else it only adds); idempotentHint, calling it again with the same arguments has
 * no further effect (a repeat that is refused, or answers the same, has none). They describe a call
 * without `idempotency_key`, with which every write tool's repeat has no further effect.
 * test/mcp/tool-annotations.test.ts holds each hosted tool to them by what its calls do.
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

// Every tool works on this marketplace only, so none is open-world.
export const reads: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Adds something new on every call (an upload URL and the upload it is for): a repeat adds another. */
export const adds: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/**
 * Adds something that a repeat does not add again: the repeat is refused (a listing whose slug is
 * taken, a listing already in review) or answers the same (an image already confirmed).
 */
export const addsOnce: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Overwrites or removes what was there; the same call again changes nothing more. */
export const replaces: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** What an assistant reads about the operation's MCP tool; its schemas are the operation's. */
export interface ToolDeclaration {
  /** `create_asset`: snake_case, what tools/call names. */
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** Offered by the local process (`marketkit mcp`) only, not by the hosted endpoint (docs/mcp.md). */
  localOnly?: true;
}
