/**
 * The admin surface's actions as operations (core/operations/context.ts): each action of the table
 * (core/admin/actions.ts) is run through `runOperation` for the service key's caller, as REST and MCP
 * run the developer API's, so the scope, input validation and errors take the one path; the HTTP
 * surface (surface.ts) and `marketkit admin` both call `runAdminAction`.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { invalidInput } from '../errors.js';
import { serviceScope, type Operation, type RunContext } from '../operations/context.js';
import { runOperation } from '../pipeline/run-operation.js';
import { Strict } from '../schemas/common.js';
import { adminActions, type AdminAction, type AdminContext } from './actions.js';

/** Who calls with the service key: the marketplace's operator, holding the service scope only. */
const serviceCaller = { scopes: new Set<string>([serviceScope]), credential: 'service-key' as const };

/** What an admin operation runs with: the action's context and the service key's caller. */
export type ServiceContext = AdminContext & RunContext & { caller: typeof serviceCaller };

const camel = (name: string) => name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());

/**
 * An action as an operation: its input is the path parameters and the body's (or query's) fields in
 * one object, as a developer operation's is; `run` hands the action its parameters and the rest.
 */
function operationOf(act: AdminAction): Operation<TSchema, unknown, TSchema, ServiceContext> {
  const params = Object.fromEntries(Object.entries(act.params ?? {}).map(([name, description]) => [name, Type.String({ minLength: 1, description })]));
  const fields = (act.body ?? act.query) as TObject | undefined;
  const { minProperties } = (fields ?? {}) as { minProperties?: number };
  const input = Strict(
    { ...params, ...(fields?.properties ?? {}) },
    typeof minProperties === 'number' ? { minProperties: minProperties + Object.keys(params).length } : {},
  );
  return {
    name: camel(act.name),
    summary: act.summary,
    scope: serviceScope,
    requestClass: act.method === 'GET' ? 'read' : 'write',
    errors: act.errors,
    input,
    output: act.response,
    run(context, valid) {
      const { ...rest } = valid as Record<string, unknown>;
      const given: Record<string, string> = {};
      for (const name of Object.keys(params)) {
        given[name] = rest[name] as string;
        delete rest[name];
      }
      return act.run(context, given, rest as never);
    },
  };
}

const operations = new Map(adminActions.map((act) => [act, operationOf(act)]));

/**
 * Runs an action for the service key: its path parameters and input (the body or query, already
 * read; undefined for none) through `runOperation`. A field of the input that names a path
 * parameter is refused, as on REST.
 */
export async function runAdminAction(context: AdminContext, act: AdminAction, params: Record<string, string>, input: unknown): Promise<unknown> {
  const operation = operations.get(act);
  if (!operation) throw new Error(`The admin action ${act.name} is not in the table (core/admin/actions.ts).`);
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) throw invalidInput('body', 'must be a JSON object');
  const fields: Record<string, unknown> = { ...(input as Record<string, unknown> | undefined) };
  for (const [name, value] of Object.entries(params)) {
    if (Object.prototype.hasOwnProperty.call(fields, name)) throw invalidInput(name, 'is not a field that can be set here');
    fields[name] = value;
  }
  const result = await runOperation<ServiceContext>({ ...context, caller: serviceCaller }, operation, fields);
  return result.value;
}
