// The console's Failed page API (/console/api/failed...): failed exchanges of the engine's durable
// store browsed masked, replayed through the routes the engine serves now, discarded, and the
// audit. The same runner as `engine failed` (store/replay.ts); the actor is the operator name the
// page sends in `x-console-user`. http.ts checks host, origin and JSON content type first.

import type { RunningEngine } from '../engine.ts';
import { PlatformError } from '../core/errors.ts';
import { compileSecrets, maskText, valuesSecrets } from '../observability/mask.ts';
import { durableStoreFor } from '../store/durable-for.ts';
import { DurableStoreUnavailableError, type DurableStore } from '../store/durable.ts';
import { FilterError, maskAudit, maskRecord, narrows, parseFilter, parseTime } from '../store/failed-view.ts';
import {
  countMatching,
  discardMatching,
  discardOne,
  replayMatching,
  replayOne,
  ReplayRefusal,
  type ReplayHost,
} from '../store/replay.ts';

type Answer = { status: number; body?: unknown };

/** records listed when the page names no limit */
const LIST_DEFAULT = 50;
const ACTOR_MAX = 64;

/** The operator the page names (`x-console-user`), else `console`; control characters dropped. */
export function consoleActor(header: string | string[] | undefined): string {
  const v = (Array.isArray(header) ? header[0] : header) ?? '';
  const name = [...v]
    .filter((c) => c >= ' ' && c !== '\u007f')
    .join('')
    .trim()
    .slice(0, ACTOR_MAX);
  return name || 'console';
}

const bad = (detail: string) => new PlatformError({ kind: 'validation', detail });

function refusal(e: ReplayRefusal): PlatformError {
  if (e.reason === 'unknown') return new PlatformError({ kind: 'not-found', detail: e.message });
  if (e.reason === 'input')
    return new PlatformError({ kind: 'validation', status: 422, title: 'Unprocessable input', detail: e.message });
  return new PlatformError({
    kind: 'conflict',
    detail: e.message,
    extensions: e.record ? { recordStatus: e.record.status } : undefined,
  });
}

function unavailable(e: unknown): PlatformError {
  const cause = (e as Error)?.cause ?? e;
  return new PlatformError({
    kind: 'internal',
    status: 503,
    title: 'Service unavailable',
    detail: `the durable store is unavailable: ${maskText((cause as Error)?.message ?? String(cause))}`,
    headers: { 'retry-after': '10' },
  });
}

const isStoreDown = (e: unknown) =>
  e instanceof DurableStoreUnavailableError ||
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|57P01)$/.test(String((e as { code?: unknown })?.code));

/** The bulk body: `{ route?, code?, since?, until?, dryRun?, allMatching? }`. */
function bulkFilter(body: unknown) {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body)))
    throw bad('the body must be a JSON object: { route?, code?, since?, until?, dryRun?, allMatching? }');
  const b = (body ?? {}) as Record<string, unknown>;
  for (const k of ['route', 'code', 'since', 'until'])
    if (b[k] !== undefined && typeof b[k] !== 'string') throw bad(`'${k}' must be a string`);
  const f = parseFilter(b as Record<string, string | undefined>, 'any');
  if (!narrows(f) && b.allMatching !== true)
    throw bad("name a filter (route, code, since, until) or 'allMatching': true to act on every open record");
  return { filter: f, dryRun: b.dryRun === true };
}

/** Answers /console/api/failed[/...]; undefined for a path it does not serve. */
export async function failedApi(
  e: RunningEngine,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
  actor: string,
): Promise<Answer | undefined> {
  if (path !== 'failed' && !path.startsWith('failed/')) return undefined;
  try {
    let store: DurableStore;
    try {
      store = await durableStoreFor(e.services);
    } catch (err) {
      throw unavailable(err);
    }
    const secrets = compileSecrets(valuesSecrets(e.values));
    const host: ReplayHost = {
      store,
      route: (id) => e.routes.find((r) => r.id === id),
      metrics: e.services.metrics,
      logger: e.services.logger,
      actor,
      via: 'console',
    };
    const rest = path.slice('failed'.length).replace(/^\//, '');
    if (method === 'GET' && rest === '') {
      const q = Object.fromEntries(query) as Record<string, string>;
      const f = parseFilter({ ...q, limit: q.limit || String(LIST_DEFAULT) }, 'open');
      const [recs, total, open] = await Promise.all([
        store.listFailed(f),
        store.countFailed({ ...f, limit: undefined }),
        store.countOpen(),
      ]);
      return { status: 200, body: { records: recs.map((r) => maskRecord(r, secrets)), open, total } };
    }
    if (method === 'GET' && rest === 'history') {
      const limit = parseFilter({ limit: query.get('limit') ?? undefined }, 'any').limit ?? LIST_DEFAULT;
      const since = query.get('since');
      const entries = await store.listAudit({
        record: query.get('record') || undefined,
        actor: query.get('actor') || undefined,
        since: since ? parseTime('since', since) : undefined,
        limit,
      });
      return { status: 200, body: { entries: entries.map((x) => maskAudit(x, secrets)) } };
    }
    if (method === 'POST' && (rest === 'replay' || rest === 'discard')) {
      const { filter, dryRun } = bulkFilter(body);
      const matched = await countMatching(store, filter);
      if (dryRun) return { status: 200, body: { matched, replayed: 0, failed: 0 } };
      if (!matched)
        throw new PlatformError({ kind: 'not-found', detail: `no open failed exchanges match; nothing to ${rest}` });
      const r = rest === 'replay' ? await replayMatching(host, filter) : await discardMatching(host, filter);
      return {
        status: 200,
        body: { matched: r.matched, replayed: r.replayed, failed: r.failed, refused: r.refused, records: r.records },
      };
    }
    const m = /^([^/]+)(?:\/(replay|discard))?$/.exec(rest);
    if (m) {
      const id = decodeURIComponent(m[1]!);
      if (method === 'GET' && !m[2]) {
        const r = await store.getFailed(id);
        if (!r) throw new PlatformError({ kind: 'not-found', detail: `no failed exchange '${id.slice(0, 80)}'` });
        return { status: 200, body: maskRecord(r, secrets) };
      }
      if (method === 'POST' && m[2] === 'replay') {
        const r = await replayOne(host, id);
        return { status: 200, body: { outcome: r.outcome, record: maskRecord(r.record, secrets) } };
      }
      if (method === 'POST' && m[2] === 'discard')
        return { status: 200, body: { record: maskRecord(await discardOne(host, id), secrets) } };
    }
    return undefined;
  } catch (err) {
    if (err instanceof ReplayRefusal) throw refusal(err);
    if (err instanceof FilterError) throw bad(err.message);
    if (isStoreDown(err)) throw unavailable(err);
    throw err;
  }
}
