/**
 * A small metrics registry written in Prometheus's text exposition format (0.0.4), with no
 * dependency: counters, gauges and histograms, each with a fixed list of label names. A child (one
 * combination of label values) is made once and kept by whoever counts with it, so that counting
 * on the hot path is an addition, not a lookup by a string built per request. Label values come
 * from bounded sets chosen by the code (a route template, a status code, a tool name), never from
 * what a client sends.
 */

export const metricsContentType = 'text/plain; version=0.0.4; charset=utf-8';

/** OpenTelemetry's advised buckets for `http.server.request.duration`, in seconds. */
export const httpDurationBuckets: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export interface CounterChild {
  inc(by?: number): void;
}
export interface GaugeChild {
  inc(by?: number): void;
  dec(by?: number): void;
  set(value: number): void;
}
export interface HistogramChild {
  observe(value: number): void;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const formatNumber = (value: number) => (Number.isFinite(value) ? String(value) : value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN');

/** `{a="x",b="y"}` for the names and values, or '' without labels. */
function labelText(names: readonly string[], values: readonly string[], extra?: string): string {
  const parts = names.map((name, i) => `${name}="${escapeLabel(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

abstract class Family<C> {
  protected readonly children = new Map<string, { values: readonly string[]; child: C }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The child for these label values (as many as the label names), made on first use. */
  labels(...values: string[]): C {
    const key = values.join('\u0000');
    let found = this.children.get(key);
    if (!found) this.children.set(key, (found = { values, child: this.make() }));
    return found.child;
  }

  protected abstract make(): C;
  abstract type: string;
  abstract samples(out: string[]): void;

  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`);
    this.samples(out);
  }
}

class ValueChild implements GaugeChild {
  value = 0;
  inc(by = 1) {
    this.value += by;
  }
  dec(by = 1) {
    this.value -= by;
  }
  set(value: number) {
    this.value = value;
  }
}

/** A family whose children are one number each (counters and gauges). */
abstract class ValueFamily<C> extends Family<C> {
  protected make() {
    return new ValueChild() as C;
  }
  samples(out: string[]) {
    for (const { values, child } of this.children.values()) out.push(`${this.name}${labelText(this.labelNames, values)} ${formatNumber((child as ValueChild).value)}`);
  }
}

export class Counter extends ValueFamily<CounterChild> {
  type = 'counter';
}

export class Gauge extends ValueFamily<GaugeChild> {
  type = 'gauge';
}

class BucketChild implements HistogramChild {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length).fill(0);
  }
  observe(value: number) {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

export class Histogram extends Family<HistogramChild> {
  type = 'histogram';
  constructor(name: string, help: string, labelNames: readonly string[], readonly buckets: readonly number[]) {
    super(name, help, labelNames);
  }
  protected make() {
    return new BucketChild(this.buckets);
  }
  samples(out: string[]) {
    for (const { values, child } of this.children.values()) {
      const { counts, sum, count } = child as BucketChild;
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += counts[i]!;
        out.push(`${this.name}_bucket${labelText(this.labelNames, values, `le="${formatNumber(bound)}"`)} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${labelText(this.labelNames, values, 'le="+Inf"')} ${count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, values)} ${formatNumber(sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, values)} ${count}`);
    }
  }
}

/** The families in the order they are declared; `collect` callbacks run before each render (gauges read from elsewhere: a pool, a backlog). */
export class Registry {
  private readonly families: Family<unknown>[] = [];
  private readonly collectors: (() => void | Promise<void>)[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.add(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.add(new Gauge(name, help, labelNames));
  }
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, labelNames, buckets));
  }
  onCollect(collect: () => void | Promise<void>): void {
    this.collectors.push(collect);
  }

  /** Every family as text; a collector that fails leaves its gauges as they were (its error goes to `onError`). */
  async render(onError: (error: unknown) => void = () => {}): Promise<string> {
    await Promise.all(this.collectors.map(async (collect) => {
      try {
        await collect();
      } catch (error) {
        onError(error);
      }
    }));
    const out: string[] = [];
    for (const family of this.families) family.render(out);
    return `${out.join('\n')}\n`;
  }

  private add<F extends Family<unknown>>(family: F): F {
    if (this.families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} is declared twice`);
    this.families.push(family);
    return family;
  }
}
