// What stands between the steps and one client profile's vendor (or the event hub): its circuit
// breaker, bulkhead and retry budget, shared by every step and route naming the client, kept
// across reloads while the settings stay the same. A refused call never reaches the vendor: it
// fails at once as a `connection` error with status 503 and Retry-After, which the connector's
// error template maps to its outage code (keeping the 503). One log line and one metric per
// breaker transition, never per call.

import type { Logger } from 'pino';
import { PlatformError } from '../core/errors.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { GaugeChild } from '../observability/metric-types.ts';
import { CircuitBreaker, PROBE, REFUSED, type BreakerSettings, type BreakerState } from './circuit-breaker.ts';
import { Bulkhead, type BulkheadSettings } from './bulkhead.ts';
import { RetryBudget, type BudgetSettings } from './retry-budget.ts';

export interface GuardSettings {
  breaker?: BreakerSettings;
  bulkhead?: BulkheadSettings;
  budget: BudgetSettings;
  /** vendor statuses that count as failures besides 5xx (the client's retry statuses) */
  statuses: number[];
}

const STATE_VALUE: Record<BreakerState, number> = { closed: 0, open: 1, 'half-open': 2 };

/** What the console and `engine clients` show of a client. */
export interface GuardView {
  client: string;
  file: string;
  routes: string[];
  breaker?: {
    state: BreakerState;
    since: string;
    lastCause?: string;
    retryAfterMs: number;
    settings: BreakerSettings;
  };
  bulkhead?: { active: number; queued: number; settings: BulkheadSettings };
  budget: { calls: number; retries: number; refused: number; settings: BudgetSettings };
}

/** A transition of some client's breaker (AMQP sources pause and resume on them). */
export type GuardListener = (guard: ClientGuard, to: BreakerState, from: BreakerState) => void;

export class ClientGuard {
  readonly breaker?: CircuitBreaker;
  readonly bulkhead?: Bulkhead;
  readonly budget: RetryBudget;
  private readonly failing: Set<number>;
  private readonly state: GaugeChild;
  private readonly refusedBreaker;
  private readonly refusedBulkhead;
  private readonly retriesSpent;
  private readonly retriesRefused;

  constructor(
    /** the profile's key: its file and name */
    readonly key: string,
    /** how metrics, logs and the console name it: `<folder>/<name>` */
    readonly label: string,
    readonly file: string,
    readonly settings: GuardSettings,
    metrics: Metrics,
    log: Logger,
    notify: GuardListener,
  ) {
    const client = label;
    const state = (this.state = metrics.breakerState.labels({ client }));
    state.set(0);
    if (settings.breaker)
      this.breaker = new CircuitBreaker(settings.breaker, (to, from, cause) => {
        state.set(STATE_VALUE[to]);
        metrics.breakerTransitions.inc({ client, to });
        const line = { client, from, to, ...(cause ? { cause } : {}) };
        if (to === 'open')
          log.warn(
            line,
            `circuit breaker of client '${client}' opened: calls fail at once for ${settings.breaker!.halfOpenAfter} ms (${cause})`,
          );
        else if (to === 'half-open') log.info(line, `circuit breaker of client '${client}' half-open: one probe call`);
        else log.info(line, `circuit breaker of client '${client}' closed: the probe succeeded`);
        notify(this, to, from);
      });
    if (settings.bulkhead) this.bulkhead = new Bulkhead(settings.bulkhead);
    this.budget = new RetryBudget(settings.budget);
    this.failing = new Set(settings.statuses);
    this.refusedBreaker = metrics.clientRefused.labels({ client, by: 'circuit-breaker' });
    this.refusedBulkhead = metrics.clientRefused.labels({ client, by: 'bulkhead' });
    this.retriesSpent = metrics.clientRetries.labels({ client, outcome: 'spent' });
    this.retriesRefused = metrics.clientRetries.labels({ client, outcome: 'refused' });
  }

  /** Whether the breaker is open: calls are refused until its probe (a paused consumer waits). */
  get open(): boolean {
    return this.breaker?.state === 'open';
  }

  /**
   * Admits one attempt: a token for leave() (PROBE when it is the half-open breaker's probe), a
   * promise of one while the call waits in the bulkhead's queue; throws (or rejects with) the
   * refusal when the breaker is open or the bulkhead full.
   */
  enter(): number | Promise<number> {
    const b = this.breaker;
    if (b && b.state === 'open') throw this.refused('circuit-breaker');
    const h = this.bulkhead;
    if (!h) return this.pass();
    const place = h.enter();
    if (place === true) return this.passHeld();
    if (place === false) throw this.refused('bulkhead');
    return place.then((ok) => {
      if (!ok) throw this.refused('bulkhead');
      return this.passHeld();
    });
  }

  /**
   * Ends an attempt: `ok` true (an answer that is not a failure), false (a failure: no answer, a
   * 5xx or a retry status) or undefined (no verdict: the caller went away).
   */
  leave(token: number, ok: boolean | undefined, cause?: string): void {
    this.bulkhead?.leave();
    const b = this.breaker;
    if (!b) return;
    const probe = token === PROBE;
    if (ok === true) b.success(probe);
    else if (ok === false) b.failure(probe, cause ?? 'failed');
    else b.abandon(probe);
  }

  /** Whether a vendor status counts against the breaker: 5xx and the retry statuses, never a 4xx of bad input. */
  failureStatus(status: number): boolean {
    return status >= 500 || this.failing.has(status);
  }

  /** A first attempt, for the retry budget. */
  call(): void {
    this.budget.call();
  }

  /**
   * Before a retry: why it may not be made (the breaker opened, the retry budget is spent), or
   * undefined when it may (a retry is then taken from the budget).
   */
  retryRefusal(): string | undefined {
    if (this.open) return `the circuit breaker of client '${this.label}' opened`;
    return this.retry() ? undefined : `the retry budget of client '${this.label}' is spent`;
  }

  /** Ends an attempt the vendor answered: a failure when the status is one (failureStatus). */
  answered(token: number, status: number, who: string): void {
    const bad = this.failureStatus(status);
    this.leave(token, !bad, bad ? `${who} answered ${status}` : undefined);
  }

  /** Takes a retry from the budget; false (counted as refused) when none is left. */
  retry(): boolean {
    if (this.budget.retry()) {
      this.retriesSpent.inc();
      return true;
    }
    this.retriesRefused.inc();
    return false;
  }

  view(routes: string[]): GuardView {
    const b = this.breaker;
    const h = this.bulkhead;
    return {
      client: this.label,
      file: this.file,
      routes,
      ...(b
        ? {
            breaker: {
              state: b.state,
              since: new Date(b.since).toISOString(),
              ...(b.lastCause ? { lastCause: b.lastCause } : {}),
              retryAfterMs: b.retryAfterMs(),
              settings: b.settings,
            },
          }
        : {}),
      ...(h ? { bulkhead: { active: h.active, queued: h.queued, settings: h.settings } } : {}),
      budget: { ...this.budget.view(), settings: this.budget.settings },
    };
  }

  close(): void {
    this.breaker?.close();
  }

  /** Forgets what the breaker and budget counted: closed, as at start (a test's next case). */
  reset(): void {
    this.breaker?.reset();
    this.budget.reset();
    this.state.set(0);
  }

  /** The breaker's verdict on an attempt holding no bulkhead place. */
  private pass(): number {
    const b = this.breaker;
    if (!b) return 0;
    const t = b.enter();
    if (t === REFUSED) throw this.refused('circuit-breaker');
    return t;
  }

  /** The same for an attempt holding a bulkhead place: given back if the breaker refuses. */
  private passHeld(): number {
    try {
      return this.pass();
    } catch (e) {
      this.bulkhead!.leave();
      throw e;
    }
  }

  private refused(by: 'circuit-breaker' | 'bulkhead'): PlatformError {
    const b = this.breaker;
    let detail: string;
    let after = 1;
    if (by === 'circuit-breaker') {
      this.refusedBreaker.inc();
      const ms = b!.retryAfterMs();
      after = Math.max(1, Math.ceil(ms / 1000));
      detail =
        b!.state === 'open'
          ? `circuit breaker of client '${this.label}' is open since ${new Date(b!.since).toISOString()} (${b!.lastCause ?? 'failures'}): not called, next probe in ${Math.ceil(ms / 1000)} s`
          : `circuit breaker of client '${this.label}' is half-open and its probe call is under way: not called`;
    } else {
      this.refusedBulkhead.inc();
      const s = this.bulkhead!.settings;
      detail = `client '${this.label}' has ${s.maxConcurrent} calls under way and ${s.maxQueue} waiting (bulkhead full): not called`;
    }
    return new PlatformError({
      kind: 'connection',
      status: 503,
      notSent: true,
      transient: true,
      detail,
      headers: { 'Retry-After': String(after) },
      refusedBy: by,
    });
  }
}

/** The guards of this engine's clients, by profile key; routes say which they use. */
export class ClientGuards {
  private readonly guards = new Map<string, ClientGuard>();
  /** route id -> the keys of the clients its steps call */
  private readonly routes = new Map<string, Set<string>>();
  private readonly listeners = new Set<GuardListener>();
  private metrics?: Metrics;
  private log?: Logger;

  /** Set by the engine; a registry never attached (a bare HttpClients in tests) guards nothing. */
  attach(metrics: Metrics, log: Logger): void {
    this.metrics = metrics;
    this.log = log;
  }

  /**
   * The guard of a client profile, used by `routeId`: the same object while its settings stay
   * the same (a reload keeps the breaker's state), a new one when they change. Undefined when the
   * registry is not attached.
   */
  use(routeId: string, key: string, label: string, file: string, settings: GuardSettings): ClientGuard | undefined {
    if (!this.metrics || !this.log) return undefined;
    let g = this.guards.get(key);
    if (!g || JSON.stringify(g.settings) !== JSON.stringify(settings)) {
      g?.close();
      g = new ClientGuard(key, label, file, settings, this.metrics, this.log, (guard, to, from) => {
        if (this.guards.get(guard.key) !== guard) return;
        for (const l of this.listeners) l(guard, to, from);
      });
      this.guards.set(key, g);
    }
    let keys = this.routes.get(routeId);
    if (!keys) this.routes.set(routeId, (keys = new Set()));
    keys.add(key);
    return g;
  }

  /** The guards of the clients a route calls. */
  ofRoute(routeId: string): ClientGuard[] {
    const keys = this.routes.get(routeId);
    if (!keys) return [];
    return [...keys].flatMap((k) => {
      const g = this.guards.get(k);
      return g ? [g] : [];
    });
  }

  /** Listens to every breaker transition; returns the function that stops listening. */
  onChange(l: GuardListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Every client, with the routes calling it. */
  list(): GuardView[] {
    return [...this.guards.values()].map((g) =>
      g.view([...this.routes].filter(([, keys]) => keys.has(g.key)).map(([r]) => r)),
    );
  }

  /** Every client back to closed with nothing counted (between the cases of a test). */
  reset(): void {
    for (const g of this.guards.values()) {
      const was = g.breaker?.state ?? 'closed';
      g.reset();
      // a consumer paused on the breaker takes messages again
      if (was !== 'closed') for (const l of this.listeners) l(g, 'closed', was);
    }
  }

  close(): void {
    for (const g of this.guards.values()) g.close();
    this.listeners.clear();
  }
}
