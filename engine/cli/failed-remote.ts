// `engine failed` beside a running engine on the embedded store: PGlite is opened by one process
// at a time, so rather than refuse, the CLI works through the engine that holds it (its URL is
// named beside the store's lock, store/embedded-lock.ts), over its console JSON API
// (/console/api/failed..., console/failed-api.ts). Replays then run in the engine's process, with
// the routes it serves now; `--as` is sent as `x-console-user`, so the audit names the operator.

import { request } from 'node:http';
import type { AuditEntry, FailedExchange, FailedFilter } from '../store/durable.ts';
import { embeddedOwner } from '../store/embedded-lock.ts';
import { ReplayRefusal, type BulkResult } from '../store/replay.ts';
import type { FailedBackend } from './failed-backend.ts';

/** how long the first request may take before the engine counts as not answering */
const PROBE_MS = 5000;

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const dates = <T>(o: Record<string, unknown>, keys: string[]): T => {
  for (const k of keys) if (typeof o[k] === 'string') o[k] = new Date(o[k]);
  return o as T;
};
const record = (o: unknown) => dates<FailedExchange>(o as Record<string, unknown>, ['firstAt', 'lastAt', 'settledAt']);

/** The filter as the API reads it: times as ISO 8601, status `any` when none. */
function query(f: FailedFilter): string {
  const q = new URLSearchParams();
  if (f.route) q.set('route', f.route);
  if (f.code) q.set('code', f.code);
  q.set('status', f.status ?? 'any');
  if (f.since) q.set('since', f.since.toISOString());
  if (f.until) q.set('until', f.until.toISOString());
  if (f.limit) q.set('limit', String(f.limit));
  return q.toString();
}

const bulkBody = (f: FailedFilter, dryRun: boolean) => ({
  route: f.route,
  code: f.code,
  since: f.since?.toISOString(),
  until: f.until?.toISOString(),
  allMatching: true,
  dryRun,
});

/** One request: its status and body. node:http, not fetch: a bulk replay may answer after fetch's 300 s. */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs?: number,
): Promise<{ status: number; text: string }> {
  return new Promise((done, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The console API of the engine at `url`, acting as `actor`. */
function client(url: string, actor: string) {
  return async (method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<unknown> => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    let res: { status: number; text: string };
    try {
      res = await send(
        new URL(`/console/api/${path}`, url),
        method,
        {
          'x-console-user': actor,
          ...(data === undefined ? {} : { 'content-type': 'application/json' }),
        },
        data,
        timeoutMs,
      );
    } catch (e) {
      throw new Error(`the engine at ${url} does not answer: ${(e as Error).message}`, { cause: e });
    }
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      /* not JSON: its words below */
    }
    if (res.status >= 200 && res.status < 300) return json;
    const detail = String(json?.detail ?? json?.title ?? res.text.slice(0, 200));
    throw new ApiError(res.status, detail);
  };
}

function backend(call: ReturnType<typeof client>): FailedBackend {
  const refusal = (e: unknown): never => {
    if (e instanceof ApiError && (e.status === 404 || e.status === 409 || e.status === 422))
      throw new ReplayRefusal(e.status === 404 ? 'unknown' : 'status', e.message);
    throw e;
  };
  return {
    async list(f) {
      const b = (await call('GET', `failed?${query(f)}`)) as { records: unknown[]; open: number; total: number };
      return { records: b.records.map(record), open: b.open, total: b.total };
    },
    async get(id) {
      try {
        return record(await call('GET', `failed/${encodeURIComponent(id)}`));
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return undefined;
        throw e;
      }
    },
    async count(f) {
      return ((await call('POST', 'failed/replay', bulkBody(f, true))) as { matched: number }).matched;
    },
    async one(act, id) {
      const b = (await call('POST', `failed/${encodeURIComponent(id)}/${act}`, {}).catch(refusal)) as {
        outcome?: 'replayed' | 'failed';
        record: { code: string };
      };
      if (act === 'discard') return { outcome: 'discarded' };
      return { outcome: b.outcome!, ...(b.outcome === 'failed' ? { code: b.record.code } : {}) };
    },
    async bulk(act, f) {
      return (await call('POST', `failed/${act}`, bulkBody(f, false)).catch(refusal)) as BulkResult;
    },
    async history(f) {
      const q = new URLSearchParams();
      if (f.record) q.set('record', f.record);
      if (f.actor) q.set('actor', f.actor);
      if (f.since) q.set('since', f.since.toISOString());
      if (f.limit) q.set('limit', String(f.limit));
      const b = (await call('GET', `failed/history?${q}`)) as { entries: Record<string, unknown>[] };
      return b.entries.map((e) => dates<AuditEntry>(e, ['at']));
    },
  };
}

/**
 * The engine holding the embedded store in `dir`, reached through its console API and acting as
 * `actor`; else why not (no engine named beside the lock, its console off, no answer).
 */
export async function engineHoldingStore(
  dir: string,
  actor: string,
): Promise<{ backend: FailedBackend; url: string; pid: number } | { why: string }> {
  const owner = embeddedOwner(dir);
  if (!owner) return { why: 'its lock is free now; try again' };
  const { pid, url } = owner;
  if (!url) return { why: `process ${pid} names no engine listener beside the lock` };
  // a header is Latin-1 only: a name it cannot carry is refused rather than mangled in the audit
  if (!/^[\x20-\x7e]*$/.test(actor))
    return { why: `'--as' must be printable ASCII to be sent to the engine at ${url} (x-console-user)` };
  const call = client(url, actor);
  try {
    await call('GET', 'failed/history?limit=1', undefined, PROBE_MS);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      return {
        why: `the console of the engine at ${url} (pid ${pid}) is off (ENGINE_CONSOLE_ENABLED=true or engine.console.enabled turns it on)`,
      };
    if (e instanceof ApiError)
      return { why: `the console API of the engine at ${url} (pid ${pid}) answered ${e.status}: ${e.message}` };
    return { why: `${(e as Error).message} (pid ${pid})` };
  }
  return { backend: backend(call), url, pid };
}
