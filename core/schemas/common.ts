import { FormatRegistry, Type, type TSchema, type TLiteral, type TUnion, type TNull } from '@sinclair/typebox';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

// Formats must be known to TypeBox before any schema using them is checked.
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (value) => uuidPattern.test(value));
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (value) => dateTimePattern.test(value) && !Number.isNaN(Date.parse(value)));
}
if (!FormatRegistry.Has('uri')) {
  FormatRegistry.Set('uri', (value) => {
    try {
      return /^https?:$/.test(new URL(value).protocol);
    } catch {
      return false;
    }
  });
}

export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** `T | null`, the shape of every nullable field. */
export const Nullable = <T extends TSchema>(schema: T): TUnion<[T, TNull]> => Type.Union([schema, Type.Null()]);

/** A string that is one of `values`: a union of literals, which is JSON Schema `anyOf` of `const`. */
export const StringEnum = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  ) as TUnion<TLiteral<V[number]>[]>;

export const ErrorDetailSchema = Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false });

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for a person.' }),
    code: Type.String({ description: 'A stable code from the error table, for a program.' }),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
  },
  { $id: 'Error', additionalProperties: false },
);

/** An object schema that refuses fields it does not list: unknown and read-only fields are 400. */
export const Strict = <P extends Record<string, TSchema>>(properties: P, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
