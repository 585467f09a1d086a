// The outbox of one engine: opened when the first route with an outbox publication loads (so the
// embedded store's first open, ~3 s, happens at start and not on the first webhook; readiness is
// false until it is open), its publisher started then and stopped at close. Reloads register the
// routes' targets again. A store that does not open (a second process on one embedded data folder,
// PostgreSQL down at start) leaves the steps publishing during the request, as without the outbox,
// until a later try opens it.

import type { EngineServices } from '../pipeline/compile-context.ts';
import type { DurableStore } from '../store/durable.ts';
import { durableStoreFor } from '../store/durable-for.ts';
import { noteKeyUse } from '../store/store-for.ts';
import { failedRecorderFor } from '../store/failed-recorder.ts';
import { PlatformError } from '../core/errors.ts';
import { insertEntry, type OutboxEntry } from './outbox-sql.ts';
import { OutboxPublisher, type RouteTarget } from './publisher.ts';

export interface Outbox {
  /** registers (or replaces, on reload) how a route's events are sent */
  register(route: string, target: RouteTarget): void;
  /**
   * writes an event: `duplicate` when it waits already (same route, dedupe key and event id); `unavailable` when
   * the durable store could not be opened (the step then publishes directly, as without the outbox)
   */
  insert(entry: OutboxEntry): Promise<'inserted' | 'duplicate' | 'unavailable'>;
}

/** how long after a failed open the store is tried again, ms */
const REOPEN_MS = 30_000;

const outboxes = new WeakMap<EngineServices['onClose'], Outbox>();

export function outboxFor(services: EngineServices): Outbox {
  let o = outboxes.get(services.onClose);
  if (o) return o;
  const targets = new Map<string, RouteTarget>();
  type Opened = { store: DurableStore; publisher: OutboxPublisher };
  let state: 'opening' | 'open' | 'down' = 'opening';
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  // ready once the store is open, or known not to open (then the steps publish directly)
  services.readiness.set('outbox', () => state !== 'opening');
  const open = (): Promise<Opened | undefined> =>
    durableStoreFor(services).then(
      (store) => {
        const recorder = failedRecorderFor(services);
        const publisher = new OutboxPublisher(store, services.http, services.metrics, services.logger, {
          // the sources' recorder: masked cause, credentials dropped, engine_failed_exchanges_total
          recordRefusal: async (row, refusal) => {
            await recorder.record(
              { id: row.route, version: row.routeVersion },
              {
                source: 'http',
                error: new PlatformError({
                  kind: 'eventhub',
                  vendorStatus: refusal.status,
                  detail: `the event hub refused event ${row.eventId}: ${refusal.detail}`,
                  transient: false,
                }),
                body: row.inputBody,
                headers: row.inputHeaders,
                context: row.inputContext,
                attempts: row.attempts + 1,
                firstAt: row.createdAt,
                correlationId: row.correlationId,
              },
            );
          },
        });
        for (const [r, t] of targets) publisher.routes.set(r, t);
        if (!stopped) publisher.start();
        if (state === 'down')
          services.logger.info('outbox: the durable store is open; webhooks go through the outbox again');
        state = 'open';
        return { store, publisher };
      },
      (e) => {
        // one process per embedded data folder, or PostgreSQL down at start: publish directly
        // (2xx only once the event hub took the event, as without the outbox) and try again later
        if (state !== 'down')
          services.logger.error(
            { err: { message: (e as Error).message } },
            `outbox: the durable store did not open; events are published during the request until it does (tried again every ${REOPEN_MS / 1000} s)`,
          );
        state = 'down';
        if (!stopped)
          retry = setTimeout(() => {
            current = open();
          }, REOPEN_MS).unref();
        return undefined;
      },
    );
  let current = open();
  // registered after the store's own close hook, so it runs before it (closers run last first)
  services.onClose(async () => {
    stopped = true;
    clearTimeout(retry);
    const p = await current;
    await p?.publisher.stop();
  });
  o = {
    register(route, target) {
      noteKeyUse(services, 'durable', route);
      targets.set(route, target);
      void current.then((p) => p?.publisher.routes.set(route, target));
    },
    async insert(entry) {
      const p = await current;
      if (!p) return 'unavailable';
      const inserted = await insertEntry(p.store.sql, entry);
      if (inserted) p.publisher.wake();
      return inserted ? 'inserted' : 'duplicate';
    },
  };
  outboxes.set(services.onClose, o);
  return o;
}
