// Replay and discard of failed exchanges, one module for the CLI (`engine failed`) and the console:
// a record is claimed (open -> replaying, once among concurrent operators), its input rebuilt as its
// source built it (same body, headers, message id: the same dedupe keys and CloudEvent ids), run
// through the route as it is now, then settled (replayed, or open again with the new cause). Every
// act writes one audit entry; a bulk act one entry naming all its records.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createExchange, type Exchange } from '../pipeline/exchange.ts';
import { runRoute, type CompiledRoute } from '../pipeline/route.ts';
import type { Metrics } from '../observability/metrics.ts';
import { maskText } from '../observability/mask.ts';
import { logSecrets } from '../observability/logger.ts';
import { PlatformError } from '../core/errors.ts';
import type { DurableStore, FailedExchange, FailedFilter } from './durable.ts';
import { causeOf, codeOf, MAX_CAUSE } from './failed-recorder.ts';

/** What a replay runs on: the store, the routes as they are now, and who asks. */
export interface ReplayHost {
  store: DurableStore;
  route(id: string): CompiledRoute | undefined;
  metrics: Metrics;
  logger: Logger;
  /** the console user, `--as`, or the OS user */
  actor: string;
  /** how it was asked: `cli`, `console` */
  via: string;
}

/** Why a record was not replayed or discarded; nothing changed. */
export class ReplayRefusal extends Error {
  constructor(
    /** unknown: no such id; status: not open; route: its route is not loaded; input: cannot be rebuilt */
    readonly reason: 'unknown' | 'status' | 'route' | 'input',
    message: string,
    readonly record?: FailedExchange,
  ) {
    super(message);
    this.name = 'ReplayRefusal';
  }
}

export interface ReplayResult {
  outcome: 'replayed' | 'failed';
  record: FailedExchange;
}

export interface BulkResult {
  matched: number;
  replayed: number;
  failed: number;
  /** records another operator took (or settled) between the count and their turn */
  refused: number;
  /** the ids acted on, oldest first */
  records: string[];
}

/** Most records one bulk action takes: a filter matching more is narrowed (by time) and run again. */
const BULK_MAX = 10_000;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\b/i;

/** `already replayed by ops at ...`: the refusal of a record that is not open. */
function notOpen(id: string, r: FailedExchange): ReplayRefusal {
  const by = r.settledBy ? ` by ${r.settledBy}` : '';
  const at = r.settledAt ? ` at ${r.settledAt.toISOString()}` : '';
  const what =
    r.status === 'replayed'
      ? `was already replayed${by}${at}`
      : r.status === 'discarded'
        ? `was discarded${by}${at}`
        : `is being replayed${by} right now`;
  return new ReplayRefusal('status', `failed exchange ${id} ${what}; only open records are replayed or discarded`, r);
}

async function known(store: DurableStore, id: string): Promise<FailedExchange> {
  const r = await store.getFailed(id);
  if (!r) throw new ReplayRefusal('unknown', `no failed exchange '${id.slice(0, 80)}'`);
  return r;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const strings = (v: unknown): Record<string, string> =>
  v && typeof v === 'object'
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};

/** The exchange the record's source built from this input; replayOf marks it a replay. */
function rebuildExchange(r: FailedExchange, route: CompiledRoute, logger: Logger): Exchange {
  const ctx = r.context;
  const headers: Record<string, string | undefined> = { ...r.headers };
  const common = { routeId: route.id, replayOf: r.id };
  const parse = (what: string): unknown => {
    try {
      return r.body === undefined || r.body === '' ? undefined : JSON.parse(r.body);
    } catch {
      throw new ReplayRefusal('input', `failed exchange ${r.id}: its ${what} is not JSON, as when it was received`, r);
    }
  };
  const log = (correlationId: string) => logger.child({ route: route.id, correlationId, replayOf: r.id });
  if (r.source === 'amqp') {
    const messageId = str(ctx.messageId);
    const correlationId = str(ctx.correlationId) ?? r.correlationId ?? messageId ?? randomUUID();
    const contentType = str(ctx.contentType);
    if (contentType) headers['content-type'] = contentType;
    return createExchange({
      ...common,
      correlationId,
      body: ctx.content === 'text' ? r.body : parse('message body'),
      headers,
      message: {
        // the message id gives the event id and the dedupe key: the same as when it first ran
        messageId,
        queue: str(ctx.queue),
        redelivered: true,
        deliveryCount: r.attempts,
        subject: ctx.subject,
        contentType,
        correlationId: str(ctx.correlationId),
      },
      log: log(correlationId),
    });
  }
  if (r.source === 'http' || r.source === 'webhook') {
    const correlationId = r.correlationId ?? str(headers['x-correlation-id']) ?? randomUUID();
    const cfg = (route.source.config ?? {}) as { 'raw-body'?: boolean };
    const body = JSON_TYPE.test(headers['content-type'] ?? '') ? parse('request body') : r.body;
    return createExchange({
      ...common,
      correlationId,
      body,
      headers,
      query: strings(ctx.query),
      params: strings(ctx.params),
      rawBody: cfg['raw-body'] === true ? Buffer.from(r.body ?? '', 'utf8') : undefined,
      log: log(correlationId),
    });
  }
  if (r.source === 'cron') {
    const correlationId = r.correlationId ?? randomUUID();
    return createExchange({ ...common, correlationId, body: parse('body'), log: log(correlationId) });
  }
  throw new ReplayRefusal('input', `failed exchange ${r.id}: a '${r.source}' input cannot be replayed`, r);
}

/** Checks a record can be replayed now (open, its route loaded), without changing it. */
async function replayable(host: ReplayHost, id: string): Promise<{ rec: FailedExchange; route: CompiledRoute }> {
  const rec = await known(host.store, id);
  if (rec.status !== 'open') throw notOpen(id, rec);
  const route = host.route(rec.route);
  if (!route)
    throw new ReplayRefusal(
      'route',
      `failed exchange ${id}: its route '${rec.route}' is not loaded now (removed, or it has problems: engine lint says which); the record stays open`,
      rec,
    );
  if (route.source.kind !== rec.source && !(rec.source === 'webhook' && route.source.kind === 'http'))
    throw new ReplayRefusal(
      'route',
      `failed exchange ${id}: route '${rec.route}' now takes '${route.source.kind}' input, the record holds '${rec.source}' input; the record stays open`,
      rec,
    );
  return { rec, route };
}

/** Claims, runs and settles one record; no audit (the callers write it). Throws ReplayRefusal. */
async function runOne(host: ReplayHost, id: string): Promise<ReplayResult> {
  const { rec, route } = await replayable(host, id);
  // rebuilt before the claim: an input that cannot run leaves the record as it was
  const ex = rebuildExchange(rec, route, host.logger);
  const claimed = await host.store.claimForReplay(id, host.actor);
  if (!claimed) throw notOpen(id, await known(host.store, id));
  let out: { error?: PlatformError };
  try {
    out = await runRoute(route, ex, host.metrics);
  } catch (e) {
    // runRoute never throws; should it, the claim is given back rather than held until it goes stale
    out = { error: new PlatformError({ kind: 'internal', detail: String(e) }) };
  }
  if (!out.error) {
    ex.log.info({ replayOf: id, actor: host.actor }, 'failed exchange replayed');
    return { outcome: 'replayed', record: await host.store.finishReplay(id, host.actor, { ok: true }) };
  }
  // the new cause in the words and masking the sources record it with (failed-recorder.ts)
  const err = out.error;
  const secrets = logSecrets(host.logger);
  const record = await host.store.finishReplay(id, host.actor, {
    ok: false,
    code: codeOf(err),
    cause: maskText(causeOf(err), secrets, MAX_CAUSE),
    detail: err.detail === undefined ? undefined : maskText(err.detail, secrets, MAX_CAUSE),
    correlationId: ex.correlationId,
  });
  return { outcome: 'failed', record };
}

const outcomeOf = (r: ReplayResult) => (r.outcome === 'replayed' ? 'replayed' : `failed again: ${r.record.code}`);

/** Replays one record and audits it. Throws ReplayRefusal (nothing changed, nothing audited). */
export async function replayOne(host: ReplayHost, id: string): Promise<ReplayResult> {
  const r = await runOne(host, id);
  await host.store.appendAudit({
    actor: host.actor,
    action: 'replay',
    records: [id],
    outcome: outcomeOf(r),
    via: host.via,
  });
  return r;
}

/** Discards one open record and audits it. Throws ReplayRefusal. */
export async function discardOne(
  host: Pick<ReplayHost, 'store' | 'actor' | 'via'>,
  id: string,
): Promise<FailedExchange> {
  const rec = await known(host.store, id);
  if (rec.status !== 'open') throw notOpen(id, rec);
  const done = await host.store.discard(id, host.actor);
  if (!done) throw notOpen(id, await known(host.store, id));
  await host.store.appendAudit({
    actor: host.actor,
    action: 'discard',
    records: [id],
    outcome: 'discarded',
    via: host.via,
  });
  return done;
}

/** The open records a bulk action takes, oldest first (the order they arrived in). */
async function matching(store: DurableStore, filter: FailedFilter): Promise<FailedExchange[]> {
  const f = { ...filter, status: 'open' as const };
  const n = await store.countFailed(f);
  if (n > BULK_MAX)
    throw new ReplayRefusal(
      'input',
      `${n} records match; one bulk action takes at most ${BULK_MAX}: narrow it with a route, code or time`,
    );
  return (await store.listFailed({ ...f, limit: Math.max(n, 1) })).reverse();
}

/** How many open records a bulk action would take (its dry run). */
export function countMatching(store: DurableStore, filter: FailedFilter): Promise<number> {
  return store.countFailed({ ...filter, status: 'open' });
}

/**
 * Replays every open record the filter matches, one after another, each claimed on its own (a
 * record another operator took meanwhile is counted refused); one audit entry for the whole act.
 */
export async function replayMatching(host: ReplayHost, filter: FailedFilter): Promise<BulkResult> {
  const recs = await matching(host.store, filter);
  const res: BulkResult = { matched: recs.length, replayed: 0, failed: 0, refused: 0, records: [] };
  for (const rec of recs) {
    try {
      const r = await runOne(host, rec.id);
      res[r.outcome]++;
    } catch (e) {
      if (!(e instanceof ReplayRefusal)) throw e;
      res.refused++;
      host.logger.warn({ replayOf: rec.id }, e.message);
    }
    res.records.push(rec.id);
  }
  if (res.records.length)
    await host.store.appendAudit({
      actor: host.actor,
      action: 'replay',
      records: res.records,
      outcome: bulkOutcome(res),
      via: host.via,
    });
  return res;
}

/** Discards every open record the filter matches; one audit entry. */
export async function discardMatching(
  host: Pick<ReplayHost, 'store' | 'actor' | 'via'>,
  filter: FailedFilter,
): Promise<BulkResult> {
  const recs = await matching(host.store, filter);
  const res: BulkResult = { matched: recs.length, replayed: 0, failed: 0, refused: 0, records: [] };
  const done: string[] = [];
  for (const rec of recs) {
    if (await host.store.discard(rec.id, host.actor)) done.push(rec.id);
    else res.refused++;
    res.records.push(rec.id);
  }
  if (res.records.length)
    await host.store.appendAudit({
      actor: host.actor,
      action: 'discard',
      records: res.records,
      outcome: `discarded ${done.length} of ${recs.length}${res.refused ? `, ${res.refused} no longer open` : ''}`,
      via: host.via,
    });
  return res;
}

function bulkOutcome(r: BulkResult): string {
  const parts = [`replayed ${r.replayed}`, `failed again ${r.failed}`];
  if (r.refused) parts.push(`refused ${r.refused}`);
  return `${parts.join(', ')} of ${r.matched}`;
}
