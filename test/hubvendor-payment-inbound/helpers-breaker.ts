// Helpers of the backpressure tests: a copy of the payment inbound routes with other breaker (and
// source) settings, and the counters of the engine's /metrics.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestEngine } from '../helpers/engine.ts';

const SHIPPED_BREAKER = 'circuit-breaker: { failures: 5, half-open-after: 5000 }';

/**
 * Copies routes/hubvendor-payment-inbound to a temporary folder, with the event hub client's
 * circuit breaker replaced by `breaker` (a YAML flow mapping) and `from` lines added to the
 * source; returns the folder and its remover.
 */
export function routesCopy(breaker: string, from: string[] = []): { dir: string; remove: () => void } {
  const work = mkdtempSync(join(tmpdir(), 'pi-breaker-'));
  const dir = join(work, 'hubvendor-payment-inbound');
  cpSync('routes/hubvendor-payment-inbound', dir, { recursive: true });
  const connector = join(dir, 'connector.yaml');
  const text = readFileSync(connector, 'utf8');
  if (!text.includes(SHIPPED_BREAKER)) throw new Error(`connector.yaml no longer has '${SHIPPED_BREAKER}'`);
  writeFileSync(connector, text.replace(SHIPPED_BREAKER, `circuit-breaker: ${breaker}`));
  const route = join(dir, 'payment-status.yaml');
  const r = readFileSync(route, 'utf8');
  const anchor = '    max-deliveries: "{{source.maxDeliveries}}"\n';
  if (!r.includes(anchor)) throw new Error('payment-status.yaml no longer sets max-deliveries');
  writeFileSync(route, r.replace(anchor, anchor + from.map((l) => `    ${l}\n`).join('')));
  return { dir, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** The sum of a counter's series whose labels include `labels`, from the engine's /metrics. */
export async function counter(e: TestEngine, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${e.url}/metrics`);
  const text = await res.text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
