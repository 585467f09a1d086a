// Fault injection rules: make a simulator answer an error, answer late, or reset the connection,
// so tests can drive the engine's retry, timeout and error-mapping paths against real sockets.

export interface FaultRule {
  /** HTTP method to match (any when absent) */
  method?: string;
  /** regular expression (source string) tested against the request path (any when absent) */
  path?: string;
  /** answer with this status instead of calling the handler (500 when only `body` is given) */
  status?: number;
  /** body of the injected answer; JSON unless a string */
  body?: unknown;
  /** headers of the injected answer, or added to the normal answer when no status/body is given */
  headers?: Record<string, string>;
  /** wait this long first; alone, the request is then answered normally */
  delayMs?: number;
  /** destroy the socket with a TCP RST instead of answering */
  reset?: boolean;
  /** number of matching requests the rule applies to; unlimited when absent */
  times?: number;
  /**
   * run the handler first (the work is done: an order is stored), then wait `delayMs` and answer
   * with the fault instead (status default 504) or, with `reset`, drop the connection: a gateway
   * in front of the vendor losing the answer after the vendor committed
   */
  after?: boolean;
}

export interface ActiveFault extends FaultRule {
  id: string;
  /** matching requests handled so far */
  hits: number;
}

interface StoredFault {
  view: ActiveFault;
  methodUpper?: string;
  pathRe?: RegExp;
}

export class FaultRuleError extends Error {}

const RULE_KEYS = new Set(['method', 'path', 'status', 'body', 'headers', 'delayMs', 'reset', 'times', 'after']);

/** Checks a rule coming from JSON and returns it typed; throws FaultRuleError naming the field. */
export function parseFaultRule(input: unknown): FaultRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FaultRuleError('a fault rule must be a JSON object');
  const r = input as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!RULE_KEYS.has(k)) throw new FaultRuleError(`unknown fault rule field '${k}'`);
  if (r.method !== undefined && typeof r.method !== 'string') throw new FaultRuleError('method must be a string');
  if (r.path !== undefined) {
    if (typeof r.path !== 'string') throw new FaultRuleError('path must be a regular expression string');
    try {
      new RegExp(r.path);
    } catch (e) {
      throw new FaultRuleError(`path is not a valid regular expression: ${(e as Error).message}`);
    }
  }
  if (
    r.status !== undefined &&
    !(Number.isInteger(r.status) && (r.status as number) >= 100 && (r.status as number) <= 599)
  ) {
    throw new FaultRuleError('status must be an integer between 100 and 599');
  }
  if (r.headers !== undefined) {
    if (typeof r.headers !== 'object' || r.headers === null || Array.isArray(r.headers))
      throw new FaultRuleError('headers must be an object');
    for (const [k, v] of Object.entries(r.headers))
      if (typeof v !== 'string') throw new FaultRuleError(`headers.${k} must be a string`);
  }
  if (r.delayMs !== undefined && !(typeof r.delayMs === 'number' && Number.isFinite(r.delayMs) && r.delayMs >= 0)) {
    throw new FaultRuleError('delayMs must be a number >= 0');
  }
  if (r.reset !== undefined && typeof r.reset !== 'boolean') throw new FaultRuleError('reset must be a boolean');
  if (r.after !== undefined && typeof r.after !== 'boolean') throw new FaultRuleError('after must be a boolean');
  if (r.times !== undefined && !(Number.isInteger(r.times) && (r.times as number) >= 1))
    throw new FaultRuleError('times must be an integer >= 1');
  return r as FaultRule;
}

export class FaultStore {
  private rules: StoredFault[] = [];
  private nextId = 1;

  add(rule: FaultRule): ActiveFault {
    const checked = parseFaultRule(rule);
    const view: ActiveFault = { ...checked, id: `fault-${this.nextId++}`, hits: 0 };
    this.rules.push({
      view,
      methodUpper: checked.method?.toUpperCase(),
      pathRe: checked.path === undefined ? undefined : new RegExp(checked.path),
    });
    return view;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.view.id !== id);
    return this.rules.length !== before;
  }

  clear(): void {
    this.rules = [];
  }

  list(): ActiveFault[] {
    return this.rules.map((r) => r.view);
  }

  /** The first rule matching the request, counted as used; rules whose `times` ran out are dropped. */
  take(method: string, path: string): FaultRule | undefined {
    if (this.rules.length === 0) return undefined; // the common case under load
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i]!;
      if (r.methodUpper !== undefined && r.methodUpper !== method) continue;
      if (r.pathRe !== undefined && !r.pathRe.test(path)) continue;
      r.view.hits++;
      if (r.view.times !== undefined && r.view.hits >= r.view.times) this.rules.splice(i, 1);
      return r.view;
    }
    return undefined;
  }
}
