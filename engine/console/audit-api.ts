// The console's Audit page API: GET /console/api/audit (the gateway's audit records, newest first,
// filtered by user, tool, kind, subscription and time) and GET /console/api/audit/verify (the chain
// walked: whether it verifies, and the records that do not). Read only: the trail is written by the
// gateway alone. Also what `engine audit` points to while an engine holds the embedded store.

import type { RunningEngine } from '../engine.ts';
import { PlatformError } from '../core/errors.ts';
import { maskText } from '../observability/mask.ts';
import { durableStoreFor } from '../store/durable-for.ts';
import type { DurableStore } from '../store/durable.ts';
import { listRecords, verifyChain } from '../gateway/audit-chain.ts';

type Answer = { status: number; body?: unknown };

const LIST_DEFAULT = 100;
const LIST_MAX = 1000;

const bad = (detail: string) => new PlatformError({ kind: 'validation', detail });

function time(name: string, v: string | null): Date | undefined {
  if (!v) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw bad(`${name}: '${v.slice(0, 40)}' is not an ISO 8601 time`);
  return d;
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

/** Answers GET /console/api/audit[/verify]; undefined for a path it does not serve. */
export async function auditApi(
  e: RunningEngine,
  method: string,
  path: string,
  query: URLSearchParams,
): Promise<Answer | undefined> {
  if (method !== 'GET' || (path !== 'audit' && path !== 'audit/verify')) return undefined;
  let store: DurableStore;
  try {
    store = await durableStoreFor(e.services);
  } catch (err) {
    throw unavailable(err);
  }
  try {
    if (path === 'audit/verify') return { status: 200, body: await verifyChain(store.sql) };
    const limitText = query.get('limit');
    const limit = limitText ? Number(limitText) : LIST_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX) throw bad(`limit: 1 to ${LIST_MAX}`);
    const records = await listRecords(store.sql, {
      user: query.get('user') || undefined,
      tool: query.get('tool') || undefined,
      kind: query.get('kind') || undefined,
      subscription: query.get('subscription') || undefined,
      since: time('since', query.get('since')),
      until: time('until', query.get('until')),
      limit,
    });
    return { status: 200, body: { records } };
  } catch (err) {
    if (err instanceof PlatformError) throw err;
    // a store migrated before the trail existed has no table yet: an error, not records
    throw unavailable(err);
  }
}
