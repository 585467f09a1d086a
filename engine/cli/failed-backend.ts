// What `engine failed` asks of the store, in one shape for its two ways of reaching it: directly
// (the store opened in the CLI's process, replays run here) or through a running engine's console
// API (failed-remote.ts, replays run there). Records and audit entries come back masked.

import type { OpenedEngine } from '../engine.ts';
import type { Secrets } from '../observability/mask.ts';
import type { AuditEntry, AuditFilter, DurableStore, FailedExchange, FailedFilter } from '../store/durable.ts';
import { maskAudit, maskRecord } from '../store/failed-view.ts';
import {
  countMatching,
  discardMatching,
  discardOne,
  replayMatching,
  replayOne,
  type BulkResult,
  type ReplayHost,
} from '../store/replay.ts';

export type Act = 'replay' | 'discard';

export interface FailedBackend {
  list(f: FailedFilter): Promise<{ records: FailedExchange[]; open: number; total: number }>;
  get(id: string): Promise<FailedExchange | undefined>;
  /** open records the filter matches */
  count(f: FailedFilter): Promise<number>;
  /** one record by id; a ReplayRefusal when it is unknown or not open */
  one(act: Act, id: string): Promise<{ outcome: 'replayed' | 'failed' | 'discarded'; code?: string }>;
  bulk(act: Act, f: FailedFilter): Promise<BulkResult>;
  history(f: AuditFilter): Promise<AuditEntry[]>;
}

/** The store opened in this process; replays run the routes `engine` loaded, as `actor`. */
export function directBackend(
  engine: OpenedEngine,
  store: DurableStore,
  secrets: Secrets,
  actor: string,
): FailedBackend {
  const byId = new Map(engine.routes.map((r) => [r.id, r]));
  const host: ReplayHost = {
    store,
    route: (id) => byId.get(id),
    metrics: engine.services.metrics,
    logger: engine.services.logger,
    actor,
    via: 'cli',
  };
  return {
    async list(f) {
      const [recs, total, open] = await Promise.all([
        store.listFailed(f),
        store.countFailed({ ...f, limit: undefined }),
        store.countOpen(),
      ]);
      return { records: recs.map((r) => maskRecord(r, secrets)), open, total };
    },
    async get(id) {
      const r = await store.getFailed(id);
      return r && maskRecord(r, secrets);
    },
    count: (f) => countMatching(store, f),
    async one(act, id) {
      if (act === 'discard') {
        await discardOne(host, id);
        return { outcome: 'discarded' };
      }
      const r = await replayOne(host, id);
      return { outcome: r.outcome, ...(r.outcome === 'failed' ? { code: r.record.code } : {}) };
    },
    bulk: (act, f) => (act === 'replay' ? replayMatching(host, f) : discardMatching(host, f)),
    history: async (f) => (await store.listAudit(f)).map((e) => maskAudit(e, secrets)),
  };
}
