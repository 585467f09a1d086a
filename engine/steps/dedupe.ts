// dedupe: an idempotent receiver for at-least-once inputs (webhook-id). A key is remembered only
// once its exchange succeeded, so a delivery that failed (event hub down) is processed again
// when the vendor redelivers; a repeat of a processed key ends the route with `duplicate`.
// A repeat arriving while the first is still in flight gets 409 so the sender retries later.

import { defineStep } from './step-kind.ts';
import { PlatformError } from '../runtime/errors.ts';
import { isPromise } from '../runtime/expressions.ts';
import { TtlSet } from '../runtime/ttl-set.ts';
import type { Exchange } from '../runtime/exchange.ts';

interface DedupeConfig { key: string; ttl?: number | string; 'max-keys'?: number; reply?: unknown }

export default defineStep<DedupeConfig>({
  kind: 'dedupe',
  description: 'Skips inputs whose key (JSONata, e.g. the webhook-id header) was already processed successfully.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['key'],
    properties: {
      key: { type: 'string', description: 'JSONata giving the deduplication key' },
      ttl: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^\\d+$' }], default: 86400, description: 'seconds a processed key is remembered' },
      'max-keys': { type: 'integer', minimum: 1, default: 100000, description: 'most keys this step remembers; past it, the oldest are forgotten first' },
      reply: { default: { status: 'duplicate' }, description: 'body answered for a duplicate' },
    },
  },
  compile(cfg, ctx) {
    const key = ctx.expr(cfg.key, ['key']);
    const done = new TtlSet(Number(cfg.ttl ?? 86400) * 1000, cfg['max-keys'] ?? 100_000);
    const inFlight = new Set<string>();
    const reply = cfg.reply ?? { status: 'duplicate' };
    const check = (ex: Exchange, k: unknown): void => {
      if (k === undefined || k === null || k === '') throw new PlatformError({ kind: 'validation', code: 'GC025', detail: `deduplication key is missing (${cfg.key})` });
      const id = String(k);
      if (done.has(id)) {
        ex.log.info({ key: id }, 'duplicate input skipped');
        ex.body = structuredClone(reply);
        ex.stopped = true;
        return;
      }
      if (inFlight.has(id)) throw new PlatformError({ kind: 'conflict', code: 'GC003', detail: 'the same input is being processed; retry later', transient: true });
      inFlight.add(id);
      (ex.completions ??= []).push((error) => {
        inFlight.delete(id);
        if (!error) done.add(id);
      });
    };
    return (ex) => {
      const k = key.evaluate(ex);
      if (isPromise(k)) return k.then((r) => check(ex, r));
      check(ex, k);
    };
  },
});
