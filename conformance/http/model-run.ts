/**
 * Model-based tests: fast-check makes random sequences of listing operations, runs them against
 * the server and a small reference model of the contract, and after every step compares the
 * server's answer (status, code, the listing's resulting state) with the model. A failure is
 * shrunk to a short sequence and reported as the HTTP calls that reproduce it.
 *
 * fast-check is imported lazily, so that the port suites of `marketkit/conformance` load without it.
 */
import { RequirementFailure, type CheckContext } from './check.js';
import { replayLine, type Exchange } from './client.js';
import { modelCommands } from './model-commands.js';
import type { Model } from './model-state.js';

export interface ModelOptions {
  runs: number;
  seed: number;
  maxCommands?: number;
  onRun?: (run: number) => void;
}

export async function runModel(ctx: CheckContext, options: ModelOptions): Promise<void> {
  const fc = await import('fast-check').catch(() => {
    throw new Error('marketkit conformance: the model-based tests need the fast-check package (npm install fast-check), or run with --runs 0');
  });
  const { client } = ctx;
  const { Create, Batch, Patch, Upload, Image, Submit, Delete, Get, List } = modelCommands(ctx);

  // Few slugs, so that conflicts happen; creates weigh double, so that listings exist to act on.
  const slugIndex = fc.integer({ min: 0, max: 2 });
  const create = fc.tuple(slugIndex, fc.nat({ max: 4 }), fc.boolean()).map(([s, v, sch]) => new Create(s, v > 0, sch));
  const pick = fc.nat({ max: 11 });
  const commands = [
    create,
    create,
    fc.array(fc.record({ slugIndex, valid: fc.nat({ max: 3 }).map((n) => n > 0) }), { minLength: 1, maxLength: 4 }).map((items) => new Batch(items)),
    fc.tuple(pick, fc.constantFrom('title', 'slug', 'schedule', 'unschedule') as import('fast-check').Arbitrary<'title' | 'slug' | 'schedule' | 'unschedule'>, slugIndex).map(([p, c, s]) => new Patch(p, c, s)),
    pick.map((p) => new Upload(p)),
    pick.map((p) => new Image(p)),
    pick.map((p) => new Submit(p)),
    pick.map((p) => new Delete(p)),
    pick.map((p) => new Get(p)),
    fc.constant(null).map(() => new List()),
  ];

  let runIndex = 0;
  // The calls of the latest failing run: after shrinking, the smallest counterexample.
  let failingRun: Exchange[] = [];
  const property = fc.asyncProperty(fc.commands(commands, { maxCommands: options.maxCommands ?? 12 }), async (cmds) => {
    runIndex++;
    options.onRun?.(runIndex);
    client.take();
    const prefix = ctx.slug(`m${runIndex}`);
    try {
      await fc.asyncModelRun(() => ({ model: { live: [], deleted: [] } as Model, real: { ctx, prefix } }), cmds);
    } catch (error) {
      failingRun = client.take();
      throw error;
    }
  });
  const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, interruptAfterTimeLimit: 300_000 });
  if (!details.failed) return;
  const error = details.errorInstance;
  const commandsShown = String(details.counterexample?.[0] ?? '');
  const replay = [`# seed ${options.seed}, ${details.numShrinks} shrink(s); commands: ${commandsShown}`, ...failingRun.map(replayLine)];
  if (error instanceof RequirementFailure) throw new RequirementFailure(error.requirement, error.evidence, replay);
  throw new RequirementFailure('MODEL-SEQUENCES', { expected: `a run the model can follow (${error instanceof Error ? error.message : String(error)})` }, replay);
}
