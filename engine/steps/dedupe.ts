// dedupe: an idempotent receiver for at-least-once inputs (webhook-id). A key is remembered only
// once its exchange succeeded, so a delivery that failed (event hub down) is processed again
// when the vendor redelivers; a repeat of a processed key ends the route with `duplicate`.
// A repeat arriving while the first is still in flight gets 409 so the sender retries later.
// With a shared store (Redis) this holds across replicas; if the store is unreachable the step
// fails closed with 503 and Retry-After: the sender retries, nothing is published twice or lost.

import { defineStep } from './step-kind.ts';
import { PlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { isPromise } from '../expressions/expressions.ts';
import { storeFor } from '../store/store-for.ts';
import type { Claim } from '../store/store.ts';
import type { Exchange } from '../pipeline/exchange.ts';

interface DedupeConfig {
  key: string;
  ttl?: number | string;
  'max-keys'?: number;
  reply?: unknown;
}

export default defineStep<DedupeConfig>({
  kind: 'dedupe',
  description: 'Skips inputs whose key (JSONata, e.g. the webhook-id header) was already processed successfully.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['key'],
    properties: {
      key: { type: 'string', description: 'JSONata giving the deduplication key' },
      ttl: {
        anyOf: [
          { type: 'integer', minimum: 1 },
          { type: 'string', pattern: '^\\d+$' },
        ],
        default: 86400,
        description: 'seconds a processed key is remembered',
      },
      'max-keys': {
        type: 'integer',
        minimum: 1,
        default: 100000,
        description: 'most keys this step remembers; past it, the oldest are forgotten first',
      },
      reply: { default: { status: 'duplicate' }, description: 'body answered for a duplicate' },
    },
  },
  compile(cfg, ctx) {
    const key = ctx.expr(cfg.key, ['key']);
    const claims = storeFor(ctx.services, ctx.route.id).claims({
      namespace: ctx.route.id,
      ttlMs: Number(cfg.ttl ?? 86400) * 1000,
      maxKeys: cfg['max-keys'] ?? 100_000,
    });
    const reply = cfg.reply ?? { status: 'duplicate' };
    const decide = (ex: Exchange, id: string, c: Claim): void => {
      if (c.state === 'done' && ex.replayOf) {
        // a replay of a failed exchange runs although its key is done: the webhook was answered 2xx
        // and its event then refused by the hub (the outbox), so nothing of it got through
        ex.log.info({ key: id, replayOf: ex.replayOf }, 'dedupe: key already processed; running the replay');
        ex.dedupeKey = id;
        return;
      }
      if (c.state === 'done') {
        ex.log.info({ key: id }, 'duplicate input skipped');
        ex.body = structuredClone(reply);
        ex.stopped = true;
        return;
      }
      if (c.state === 'busy')
        throw new PlatformError({
          kind: 'conflict',
          code: CODE.conflict,
          detail: 'the same input is being processed; retry later',
          headers: { 'Retry-After': '5' },
          transient: true,
        });
      // the outbox keeps the key with the event: its row is the key's durable mark (engine/outbox/)
      ex.dedupeKey = id;
      (ex.completions ??= []).push((error) => {
        // the exchange already answered: a store failure here is logged; the claim then expires
        // (inFlightTimeout) and a redelivery is processed again, with the same event id
        const r = error ? claims.release(id, c.token) : claims.complete(id, c.token);
        if (isPromise(r))
          r.catch((e) =>
            ex.log.warn(
              { key: id, err: { message: (e as Error).message } },
              error ? 'dedupe: claim not released' : 'dedupe: key not marked done',
            ),
          );
      });
    };
    const check = (ex: Exchange, k: unknown): void | Promise<void> => {
      if (k === undefined || k === null || k === '')
        throw new PlatformError({
          kind: 'validation',
          code: CODE.validation,
          detail: `deduplication key is missing (${cfg.key})`,
        });
      const id = String(k);
      let c: Claim | Promise<Claim>;
      try {
        c = claims.claim(id);
      } catch (e) {
        throw unavailable(e);
      }
      if (isPromise(c))
        return c.then(
          (r) => decide(ex, id, r),
          (e) => {
            throw unavailable(e);
          },
        );
      decide(ex, id, c);
    };
    return (ex) => {
      const k = key.evaluate(ex);
      if (isPromise(k)) return k.then((r) => check(ex, r));
      return check(ex, k);
    };
  },
  example: `id: example-dedupe
from:
  http:
    path: /examples/dedupe
steps:
  - dedupe:
      key: "headers.'webhook-id'"
      ttl: 86400
      reply: { status: duplicate }
  - log:
      message: first delivery processed`,
});

/** Outage policy of dedupe: fail closed with a retriable status (never publish unchecked). */
function unavailable(cause: unknown): PlatformError {
  return new PlatformError({
    kind: 'internal',
    status: 503,
    code: CODE.generic,
    title: 'Service unavailable',
    detail: 'deduplication store unavailable; deliver again later',
    headers: { 'Retry-After': '5' },
    transient: true,
    cause,
  });
}
