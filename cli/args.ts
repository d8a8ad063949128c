import { parseArgs, type ParseArgsConfig } from 'node:util';
import * as v from 'valibot';
import { optionProblems } from '../core/options.js';

export interface CommandSpec<S extends v.GenericSchema> {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** One line per option, in the order shown by --help. */
  help: [flag: string, text: string][];
  schema: S;
  /** How many positional arguments the command takes (none when absent); parseCommand hands them back. */
  positionals?: string[];
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function helpText(spec: CommandSpec<v.GenericSchema>): string {
  const width = Math.max(...spec.help.map(([flag]) => flag.length));
  return [
    `${spec.summary}`,
    '',
    `Usage: ${spec.usage}`,
    '',
    'Options:',
    ...spec.help.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    `  ${'-h, --help'.padEnd(width)}  Show this help.`,
  ].join('\n');
}

/** Flags parsed and validated: a UsageError that says what to change, or `help` when asked for. */
export function parseCommand<S extends v.GenericSchema>(
  spec: CommandSpec<S>,
  argv: string[],
  defaults: Record<string, unknown> = {},
): { help: true } | { help: false; values: v.InferOutput<S>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...spec.options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: spec.positionals !== undefined });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nRun "marketkit ${spec.name} --help" for the options.`);
  }
  if (parsed.values.help) return { help: true };
  const expected = spec.positionals ?? [];
  if (parsed.positionals.length !== expected.length) {
    throw new UsageError(`expected ${expected.map((name) => `<${name}>`).join(' ')}, got ${parsed.positionals.length} argument(s).\nRun "marketkit ${spec.name} --help" for the options.`);
  }
  const { help: _help, ...values } = parsed.values;
  const parsedValues = optionProblems(spec.schema, { ...defaults, ...values });
  if ('output' in parsedValues) return { help: false, values: parsedValues.output, positionals: parsed.positionals };
  throw new UsageError(`${parsedValues.problems.join('; ')}\nRun "marketkit ${spec.name} --help" for the options.`);
}

/** A port number from a flag or the environment, as text or number. */
export const PortNumber = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform(Number),
  v.integer('port must be an integer'),
  v.minValue(0, 'port must be 0 to 65535'),
  v.maxValue(65535, 'port must be 0 to 65535'),
);

/** Whether `flag` was given on the command line (not only by a default or the environment). */
export function givenFlag(argv: readonly string[], flag: string): boolean {
  return argv.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`));
}
