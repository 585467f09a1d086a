// `engine audit verify` and `engine audit list`: the gateway's audit trail in the project's durable
// store (its engine.store settings for --env, or ENGINE_STORE_POSTGRES_URL). verify walks the
// chain and names the first records that were edited, removed or moved (exit 1); list filters by
// user, tool, kind and time. An embedded store a running engine holds cannot be opened by a second
// process: then the CLI asks the engine holding it, over its console API (/console/api/audit,
// console/audit-api.ts), as `engine failed` does.

import type { Command } from 'commander';
import { openEngine } from '../engine.ts';
import { createLogger } from '../observability/logger.ts';
import { maskText } from '../observability/mask.ts';
import { durableStoreFor, effectiveDurableSettings } from '../store/durable-for.ts';
import { embeddedOwner } from '../store/embedded-lock.ts';
import type { DurableStore } from '../store/durable.ts';
import { listRecords, verifyChain, type AuditListFilter, type AuditRecord, type VerifyResult } from './audit-chain.ts';

/** What the commands read: the store itself, or the console API of the engine holding it. */
interface AuditSource {
  list(f: AuditListFilter): Promise<AuditRecord[]>;
  verify(): Promise<VerifyResult>;
}

/** How long the engine holding the store may take to answer, ms (a verify walks the whole chain). */
const REMOTE_MS = 120_000;

/** The console API of the engine at `url`. */
function remote(url: string): AuditSource {
  const get = async (path: string): Promise<any> => {
    let res: Response;
    try {
      res = await fetch(new URL(`/console/api/${path}`, url), { signal: AbortSignal.timeout(REMOTE_MS) });
    } catch (e) {
      throw new Refused(`the engine at ${url} does not answer: ${(e as Error).message}`);
    }
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      /* its words below */
    }
    if (res.status === 404)
      throw new Refused(
        `the console of the engine at ${url} is off (ENGINE_CONSOLE_ENABLED=true or engine.console.enabled turns it on)`,
      );
    if (!res.ok)
      throw new Refused(`the engine at ${url} answered ${res.status}: ${json?.detail ?? text.slice(0, 200)}`);
    return json;
  };
  return {
    async list(f) {
      const q = new URLSearchParams();
      for (const k of ['user', 'tool', 'kind', 'subscription'] as const) if (f[k]) q.set(k, f[k]);
      if (f.since) q.set('since', f.since.toISOString());
      if (f.until) q.set('until', f.until.toISOString());
      q.set('limit', String(Math.min(f.limit ?? 100, 1000)));
      return ((await get(`audit?${q}`)) as { records: AuditRecord[] }).records;
    },
    verify: () => get('audit/verify') as Promise<VerifyResult>,
  };
}

const direct = (store: DurableStore): AuditSource => ({
  list: (f) => listRecords(store.sql, f),
  verify: () => verifyChain(store.sql),
});

interface AuditCommon {
  env?: string;
  values: string;
  routes: string;
  json?: boolean;
}

class Refused extends Error {}

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');

/** Opens the project's durable store, runs `fn`, closes; a refusal is one line on stderr, exit 1. */
async function withStore(o: AuditCommon, fn: (source: AuditSource) => Promise<void>): Promise<void> {
  let engine: Awaited<ReturnType<typeof openEngine>> | undefined;
  try {
    engine = await openEngine({
      routes: o.routes.split(','),
      env: o.env,
      valuesDir: o.values,
      outbox: false,
      logger: createLogger('silent'),
    });
    let source: AuditSource;
    try {
      source = direct(await durableStoreFor(engine.services));
    } catch (e) {
      const why = String(((e as Error)?.cause as Error)?.message ?? (e as Error)?.message ?? e);
      if (!/is in use by process/.test(why)) throw new Refused(`the durable store is unavailable: ${why}`);
      const s = effectiveDurableSettings(engine.services.settings.store, engine.services.root);
      const owner = s.kind === 'embedded' ? embeddedOwner(s.dir) : undefined;
      if (!owner?.url)
        throw new Refused(
          `${why.replace(/: one process per folder.*$/, '')}: another process holds this embedded store and names no ` +
            'engine listener; stop it, or configure PostgreSQL',
        );
      process.stderr.write(
        `the embedded store is in use by the engine at ${owner.url} (pid ${owner.pid}); working through its console API\n`,
      );
      source = remote(owner.url);
    }
    await fn(source);
  } catch (e) {
    process.stderr.write(`engine audit: ${maskText((e as Error)?.message ?? String(e))}\n`);
    process.exitCode = 1;
  } finally {
    await engine?.close().catch(() => {});
  }
}

function parseSince(s: string | undefined, what: string): Date | undefined {
  if (s === undefined) return undefined;
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) throw new Refused(`${what}: '${s.slice(0, 40)}' is not an ISO 8601 time`);
  return d;
}

const COLS: [string, (r: AuditRecord) => string | undefined][] = [
  ['SEQ', (r) => String(r.seq)],
  ['AT', (r) => r.at],
  ['KIND', (r) => r.kind],
  ['TOOL', (r) => r.tool],
  ['USER', (r) => r.user],
  ['SUBSCRIPTION', (r) => r.subscription],
  ['OUTCOME', (r) => r.outcome],
  ['CODE/CHECK', (r) => r.code ?? r.check],
];

function recordsTable(recs: AuditRecord[]): string {
  const rows = [COLS.map(([h]) => h), ...recs.map((r) => COLS.map(([, f]) => (f(r) ?? '-').slice(0, 40)))];
  const w = COLS.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(w[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function common(cmd: Command): Command {
  return cmd
    .option('--env <name>', 'environment (its engine.store settings)')
    .option('--values <dir>', 'values directory', 'values')
    .option('--routes <dirs>', 'route folders, comma-separated', 'routes')
    .option('--json', 'JSON output');
}

export function registerAuditCommand(program: Command): void {
  const audit = program
    .command('audit')
    .description("the gateway's audit trail: every decision, hash-chained in the durable store");
  common(audit.command('verify').description('walk the chain; exit 1 naming a record edited, removed or moved')).action(
    (o: AuditCommon) =>
      withStore(o, async (source) => {
        const v = await source.verify();
        if (o.json) out(JSON.stringify(v, null, 2));
        if (!v.ok) {
          if (!o.json) for (const p of v.problems) process.stderr.write(`${p}\n`);
          process.exitCode = 1;
          return;
        }
        if (!o.json)
          out(
            v.head
              ? `audit trail verified: ${v.records} records; head: record ${v.head.seq} ${v.head.hash}`
              : 'audit trail verified: no records yet',
          );
      }),
  );
  common(
    audit
      .command('list')
      .description('records, newest first')
      .option('--user <id>', "the token's subject (or anonymous, or the approver)")
      .option('--tool <name>', 'tool name')
      .option('--kind <kind>', 'call, refusal, confirmation, approval or gap')
      .option('--subscription <name>', 'subscription name')
      .option('--since <iso>', 'at or after this time (ISO 8601)')
      .option('--until <iso>', 'before this time (ISO 8601)')
      .option('--limit <n>', 'most records', '100'),
  ).action(
    (
      o: AuditCommon & Omit<AuditListFilter, 'since' | 'until' | 'limit'> & Record<'since' | 'until' | 'limit', string>,
    ) =>
      withStore(o, async (source) => {
        const limit = Number(o.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new Refused(`--limit: '${o.limit}' is not a positive integer`);
        const recs = await source.list({
          user: o.user,
          tool: o.tool,
          kind: o.kind,
          subscription: o.subscription,
          since: parseSince(o.since, '--since'),
          until: parseSince(o.until, '--until'),
          limit,
        });
        if (o.json) {
          out(JSON.stringify(recs, null, 2));
          return;
        }
        out(recs.length ? `${recordsTable(recs)}\n${recs.length} record(s)` : 'no audit records match');
      }),
  );
}
