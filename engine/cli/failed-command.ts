// `engine failed list|show|replay|discard|history`: the failed exchanges of the environment's
// durable store (its engine.store settings, ENGINE_STORE_POSTGRES_URL), browsed masked, replayed
// through the routes as they are now (run in this process: no source, no listener; a route with
// problems does not load, and its records are refused, not run), discarded,
// and every act audited (engine/store/replay.ts). Bad input is one line on stderr and exit 1,
// with nothing changed. An embedded store a running engine holds is reached through that engine's
// console API instead (failed-remote.ts): same output, replays run in the engine.

import { userInfo } from 'node:os';
import pino from 'pino';
import type { Command } from 'commander';
import { openEngine, type EngineOptions, type OpenedEngine } from '../engine.ts';
import { DiagnosticError, formatDiagnostic } from '../core/diagnostics.ts';
import { createLogger } from '../observability/logger.ts';
import { compileSecrets, maskText, valuesSecrets } from '../observability/mask.ts';
import { durableStoreFor, describeDurable, effectiveDurableSettings } from '../store/durable-for.ts';
import { DurableStoreUnavailableError, type FailedExchange, type FailedFilter } from '../store/durable.ts';
import { FilterError, narrows, parseFilter, parseTime, type FilterText } from '../store/failed-view.ts';
import { ReplayRefusal } from '../store/replay.ts';
import { directBackend, type Act, type FailedBackend } from './failed-backend.ts';
import { engineHoldingStore } from './failed-remote.ts';

/** The options every `engine failed` command takes (--env, --values, --secrets, --set), as `engine run` has them. */
export interface FailedCommon {
  env?: string;
  values: string;
  secrets?: string;
  set: Record<string, string>;
  routes: string[];
  json?: boolean;
}

/** A refusal the operator can act on: its message, exit 1. */
class Refused extends Error {}

const out = (s: string): void => {
  process.stdout.write(s.endsWith('\n') ? s : s + '\n');
};

function defaultActor(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/**
 * Opens the project and its durable store, runs `fn`, closes both; every refusal is one line, exit 1.
 * An embedded store a running engine holds is reached through that engine (failed-remote.ts).
 */
async function session(
  o: FailedCommon,
  toOptions: (o: FailedCommon) => EngineOptions,
  actor: string,
  fn: (b: FailedBackend) => Promise<number | void>,
): Promise<void> {
  // logs (a replayed route's warnings) go to stderr: stdout is the table or the JSON
  const log = new HeldLog();
  const logger = createLogger((process.env.LOG_LEVEL as pino.LevelWithSilent | undefined) || 'warn', log);
  let engine: OpenedEngine | undefined;
  try {
    try {
      engine = await openEngine({ ...toOptions(o), logger });
    } catch (e) {
      if (e instanceof DiagnosticError) {
        for (const d of e.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
        throw new Refused(`${e.diagnostics.length} problem(s) loading the project`);
      }
      throw e;
    }
    let backend: FailedBackend;
    try {
      const store = await durableStoreFor(engine.services);
      backend = directBackend(engine, store, compileSecrets(valuesSecrets(engine.values)), actor);
      log.release();
    } catch (e) {
      // this process's outbox could not open the store either: the refusal or the note below says why
      log.release(OUTBOX_DOWN);
      backend = await throughEngine(e, engine, actor);
    }
    const code = await fn(backend);
    if (code) process.exitCode = code;
  } catch (e) {
    const msg =
      e instanceof Refused || e instanceof ReplayRefusal || e instanceof FilterError
        ? e.message
        : e instanceof DurableStoreUnavailableError || isConnectionError(e)
          ? unavailable(e, engine)
          : `${(e as Error).message ?? String(e)}`;
    process.stderr.write(`engine failed: ${maskText(msg)}\n`);
    process.exitCode = 1;
  } finally {
    log.release();
    await engine?.close().catch(() => {});
  }
}

const OUTBOX_DOWN = /"msg":"outbox: the durable store did not open/;

/** stderr for the log, holding its lines until the store is reached (or not), then dropping those `drop` matches. */
class HeldLog {
  private held: string[] | undefined = [];
  write(line: string): void {
    if (this.held) this.held.push(line);
    else process.stderr.write(line);
  }
  release(drop?: RegExp): void {
    const lines = this.held ?? [];
    this.held = undefined;
    for (const l of lines) if (!drop?.test(l)) process.stderr.write(l);
  }
}

/** The store would not open: when a running engine holds it, that engine's console API; else the refusal. */
async function throughEngine(e: unknown, engine: OpenedEngine, actor: string): Promise<FailedBackend> {
  const why = String(((e as Error)?.cause as Error | undefined)?.message ?? '');
  const s = effectiveDurableSettings(engine.services.settings.store, engine.services.root);
  if (s.kind !== 'embedded' || !/is in use by process/.test(why)) throw new Refused(unavailable(e, engine));
  const via = await engineHoldingStore(s.dir, actor);
  if ('why' in via) throw new Refused(`${unavailable(e, engine)} (not through its console API: ${via.why})`);
  process.stderr.write(
    `the embedded store is in use by the engine at ${via.url} (pid ${via.pid}); working through its console API\n`,
  );
  return via.backend;
}

function isConnectionError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|57P01)$/.test(code);
}

/** Why the store cannot be used, with where it is (never the password) and what to do. */
function unavailable(e: unknown, engine: OpenedEngine | undefined): string {
  const cause = (e as Error)?.cause ?? e;
  const why = (cause as Error)?.message ?? String(cause);
  if (/is in use by process/.test(why))
    return (
      `${why.replace(/: one process per folder.*$/, '')}: an engine is running on this embedded store, and only one ` +
      "process may open it at a time. Use that engine's console (/console/, the Failed page), or stop it; " +
      'to use the CLI beside running engines, configure PostgreSQL (ENGINE_STORE_POSTGRES_URL)'
    );
  const where = engine
    ? describeDurable(effectiveDurableSettings(engine.services.settings.store, engine.services.root))
    : 'the durable store';
  return `the durable store is unavailable (${where}): ${why}; nothing was changed`;
}

// ---- output

const iso = (d?: Date) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '');
const cut = (s: string | undefined, n: number) => {
  const t = (s ?? '').replace(/\s+/g, ' ');
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
};

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}

function recordsTable(recs: FailedExchange[]): string {
  return table(
    ['ID', 'ROUTE', 'SOURCE', 'CODE', 'STATUS', 'ATTEMPTS', 'LAST FAILED', 'CAUSE'],
    recs.map((r) => [r.id, r.route, r.source, r.code, r.status, String(r.attempts), iso(r.lastAt), cut(r.cause, 60)]),
  );
}

function showRecord(r: FailedExchange): string {
  const lines = [
    ['id', r.id],
    ['route', r.route + (r.routeVersion ? ` (${r.routeVersion})` : '')],
    ['source', r.source],
    ['status', r.status + (r.settledBy ? ` (by ${r.settledBy} at ${iso(r.settledAt)})` : '')],
    ['code', r.code],
    ['cause', r.cause ?? ''],
    ['detail', r.detail ?? ''],
    ['attempts', String(r.attempts)],
    ['first failed', iso(r.firstAt)],
    ['last failed', iso(r.lastAt)],
    ['correlation id', r.correlationId ?? ''],
    ['trace id', r.traceId ?? ''],
    ['context', JSON.stringify(r.context)],
  ].filter(([, v]) => v !== '');
  let s = lines.map(([k, v]) => `${(k + ':').padEnd(16)}${v}`).join('\n') + '\n';
  const h = Object.entries(r.headers);
  if (h.length) s += '\nheaders:\n' + h.map(([k, v]) => `  ${k}: ${v}`).join('\n') + '\n';
  if (r.body !== undefined) s += '\nbody:\n' + prettyBody(r.body) + '\n';
  return s;
}

function prettyBody(b: string): string {
  try {
    return JSON.stringify(JSON.parse(b), null, 2);
  } catch {
    return b;
  }
}

const describeFilter = (f: FailedFilter) =>
  [
    f.route && `route ${f.route}`,
    f.code && `code ${f.code}`,
    f.since && `since ${iso(f.since)}`,
    f.until && `until ${iso(f.until)}`,
  ]
    .filter(Boolean)
    .join(', ') || 'no filter';

// ---- commands

interface FilterOpts extends FailedCommon, FilterText {}
interface ActOpts extends FilterOpts {
  as?: string;
  allMatching?: boolean;
  dryRun?: boolean;
}

function filters(cmd: Command): Command {
  return cmd
    .option('--route <id>', 'only records of this route')
    .option('--code <code>', 'only records with this platform code')
    .option('--since <time>', 'last failed at or after: ISO 8601 time or a duration back from now (30m, 2h, 7d)')
    .option('--until <time>', 'last failed before: ISO 8601 time or a duration back from now');
}

/** Registers `engine failed ...`; `common` adds --env, --values, --secrets and --set. */
export function registerFailedCommand(
  program: Command,
  common: (cmd: Command) => Command,
  toOptions: (o: FailedCommon) => EngineOptions,
): void {
  const failed = program
    .command('failed')
    .description(
      'browse, replay and discard failed exchanges of the durable store; every replay and discard is audited',
    );
  const sub = (name: string) =>
    common(failed.command(name))
      .option('--routes <dir>', 'route files or directories (repeatable)', (v: string, p: string[]) => [...p, v], [])
      .option('--json', 'JSON output, for scripts');
  const opts = (o: FailedCommon) => toOptions({ ...o, routes: o.routes.length ? o.routes : ['routes'] });

  filters(sub('list'))
    .description('list failed exchanges, newest first (default: the open ones)')
    .option('--status <status>', 'open, replaying, replayed, discarded or any', 'open')
    .option('--limit <n>', 'most records shown', '50')
    .action((o: FilterOpts) =>
      session(o, opts, defaultActor(), async (store) => {
        const f = parseFilter(o, 'open');
        const { records: shown, total, open } = await store.list(f);
        if (o.json) return out(JSON.stringify({ records: shown, open, total }, null, 2));
        if (!shown.length)
          return out(
            `no failed exchanges match (${f.status ?? 'any'} status, ${describeFilter(f)}); ${open} open in all`,
          );
        out(recordsTable(shown) + `\n${shown.length} shown of ${total} matching; ${open} open in all`);
      }),
    );

  sub('show')
    .argument('<id>', 'failed exchange id')
    .description('one failed exchange: its cause, context, headers and body (masked)')
    .action((id: string, o: FailedCommon) =>
      session(o, opts, defaultActor(), async (store) => {
        const m = await store.get(id);
        if (!m) throw new Refused(`no failed exchange '${id.slice(0, 80)}'`);
        out(o.json ? JSON.stringify(m, null, 2) : showRecord(m));
      }),
    );

  const act = (name: Act) =>
    filters(sub(name))
      .argument('[ids...]', 'failed exchange ids (or a filter with --all-matching)')
      .option('--all-matching', 'act on every open record the filter matches (every open record with no filter)')
      .option('--dry-run', 'print how many open records match, change nothing')
      .option('--as <name>', 'who acts, for the audit (default: the OS user)')
      .action((ids: string[], o: ActOpts) => {
        const actor = o.as?.trim() || defaultActor();
        return session(o, opts, actor, async (store) => {
          const f = parseFilter({ route: o.route, code: o.code, since: o.since, until: o.until }, 'any');
          if (ids.length) {
            if (narrows(f) || o.allMatching)
              throw new Refused(
                'give either record ids or a filter (--route, --code, --since, --until, --all-matching), not both',
              );
            if (o.dryRun) {
              const n = (await Promise.all(ids.map((id) => store.get(id)))).filter((r) => r?.status === 'open').length;
              return out(
                o.json ? JSON.stringify({ matched: n }) : `${n} of ${ids.length} open; dry run, nothing changed`,
              );
            }
            return one(name, store, actor, ids, o.json);
          }
          if (!narrows(f) && !o.allMatching)
            throw new Refused(
              `give record ids, or a filter (--route, --code, --since, --until) or --all-matching to ${name} every open record it matches`,
            );
          const n = await store.count(f);
          if (!n) throw new Refused(`no open failed exchanges match (${describeFilter(f)}); nothing to ${name}`);
          if (!o.json) out(`${n} open record(s) match (${describeFilter(f)})`);
          if (o.dryRun) return out(o.json ? JSON.stringify({ matched: n }) : 'dry run: nothing changed');
          const r = await store.bulk(name, f);
          if (o.json)
            out(
              JSON.stringify({
                matched: r.matched,
                replayed: r.replayed,
                failed: r.failed,
                refused: r.refused,
                records: r.records,
              }),
            );
          else if (name === 'replay')
            out(
              `replayed ${r.replayed}, failed again ${r.failed}${r.refused ? `, refused ${r.refused}` : ''} (as ${actor})`,
            );
          else
            out(`discarded ${r.matched - r.refused}${r.refused ? `, ${r.refused} no longer open` : ''} (as ${actor})`);
          return r.failed || r.refused ? 1 : 0;
        });
      });

  act('replay').description(
    'run failed exchanges again through their routes as they are now (same input, same event ids and dedupe keys)',
  );
  act('discard').description('set failed exchanges aside for good (they are kept, with who discarded them)');

  sub('history')
    .description('the audit: who replayed or discarded what, when, and how it ended; newest first')
    .option('--record <id>', 'only entries naming this failed exchange')
    .option('--as <name>', 'only entries of this actor')
    .option('--since <time>', 'at or after: ISO 8601 time or a duration back from now (30m, 2h, 7d)')
    .option('--limit <n>', 'most entries shown', '50')
    .action((o: FailedCommon & { record?: string; as?: string; since?: string; limit: string }) =>
      session(o, opts, defaultActor(), async (store) => {
        const limit = parseFilter({ limit: o.limit }, 'any').limit;
        const entries = await store.history({
          record: o.record,
          actor: o.as,
          since: o.since ? parseTime('since', o.since) : undefined,
          limit,
        });
        if (o.json) return out(JSON.stringify({ entries }, null, 2));
        if (!entries.length) return out('no audit entries match');
        out(
          table(
            ['AT', 'ACTOR', 'VIA', 'ACTION', 'RECORDS', 'OUTCOME'],
            entries.map((e) => [
              iso(e.at),
              e.actor,
              e.via ?? '',
              e.action,
              e.records.length > 2 ? `${e.records.length} records` : e.records.join(' '),
              e.outcome,
            ]),
          ),
        );
      }),
    );
}

/** Replays or discards the records named by id, one after another; exit 1 when any did not succeed. */
async function one(name: Act, store: FailedBackend, actor: string, ids: string[], json?: boolean): Promise<number> {
  const results: { id: string; outcome: string; code?: string; error?: string }[] = [];
  for (const id of ids) {
    try {
      results.push({ id, ...(await store.one(name, id)) });
    } catch (e) {
      if (!(e instanceof ReplayRefusal)) throw e;
      if (ids.length === 1) throw e;
      results.push({ id, outcome: 'refused', error: e.message });
    }
  }
  if (json) out(JSON.stringify({ results }));
  else
    for (const r of results) {
      if (r.outcome === 'refused') process.stderr.write(`engine failed: ${r.error}\n`);
      else
        out(
          `${r.id}: ${r.outcome === 'failed' ? `failed again: ${r.code} (the record is open again)` : r.outcome} (as ${actor})`,
        );
    }
  return results.some((r) => r.outcome !== 'replayed' && r.outcome !== 'discarded') ? 1 : 0;
}
