// Micro-benchmark of one client guard's work per vendor call, as to-http does it: call() (the
// retry budget counts a first attempt), enter() (breaker and bulkhead admit it), leave() (the
// answer's verdict). Three guards: budget only (the breaker switched off, no bulkhead), budget and
// breaker (the shipped hub client), budget, breaker and bulkhead. Best of ROUNDS, ns per call.
import { ClientGuard, type GuardSettings } from '../../engine/outbound/client-guard.ts';
import { DEFAULT_BUDGET } from '../../engine/outbound/retry-budget.ts';
import { Metrics } from '../../engine/observability/metrics.ts';
import { createLogger } from '../../engine/observability/logger.ts';

const BREAKER = { failures: 5, ratio: 0.5, minCalls: 20, window: 30_000, halfOpenAfter: 10_000 };
const BULKHEAD = { maxConcurrent: 64, maxQueue: 64, queueTimeout: 1000 };

const GUARDS: [string, GuardSettings][] = [
  ['retry budget only', { budget: DEFAULT_BUDGET, statuses: [429, 502, 503, 504] }],
  ['budget + breaker', { breaker: BREAKER, budget: DEFAULT_BUDGET, statuses: [429, 502, 503, 504] }],
  [
    'budget + breaker + bulkhead',
    { breaker: BREAKER, bulkhead: BULKHEAD, budget: DEFAULT_BUDGET, statuses: [429, 502, 503, 504] },
  ],
];

/** ns per guarded call (call + enter + failureStatus + leave) of each guard, best of `rounds`. */
export function guardNanos(calls = 2_000_000, rounds = 5): { name: string; ns: number }[] {
  const metrics = new Metrics();
  const log = createLogger('silent');
  const out: { name: string; ns: number }[] = [];
  for (const [name, settings] of GUARDS) {
    const g = new ClientGuard(`bench#${name}`, `bench/${name}`, 'bench', settings, metrics, log, () => {});
    let best = Infinity;
    for (let r = 0; r < rounds; r++) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) {
        g.call();
        const token = g.enter() as number;
        g.leave(token, !g.failureStatus(200));
      }
      best = Math.min(best, Number(process.hrtime.bigint() - t) / calls);
    }
    g.close();
    out.push({ name, ns: Math.round(best) });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { name, ns } of guardNanos()) console.log(`${name}: ${ns} ns per call`);
}
