// Outbox benchmark: the cost per webhook of accepting it through the outbox (embedded PGlite and
// PostgreSQL) beside publishing it during the request, in one run. Three engines, each in its own
// process (bench/outbox/engine.ts), one webhook route (dedupe, to-eventhub); the event hub stand-in
// is a node:http server in this process, 127.0.0.1 only. Each round sends WEBHOOKS signed-less
// webhooks (unique webhook-id, 20 keys) over CONNECTIONS connections to each engine in turn and
// waits until the hub has every event: engine CPU per webhook counts until then (the publisher's
// work included), PostgreSQL's server CPU separately. `npm run bench:outbox`
// (WEBHOOKS=2000 ROUNDS=3 CONNECTIONS=20 to change; bounded: at most ROUNDS x 3 x WEBHOOKS webhooks).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Pool } from 'undici';
import { spawnUrl, stop, cpuMicros, cpuTicks, type Proc } from '../lib/harness.ts';

const WEBHOOKS = Number(process.env.WEBHOOKS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
const PG_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_outbox_${randomUUID().replaceAll('-', '').slice(0, 10)}`;

let published = 0;
const hub = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    published++;
    res.writeHead(202, { 'content-length': 0 }).end();
  });
});
await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
const hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/events`;

/** CPU of each PostgreSQL server process by pid, µs. */
function postgresCpu(): Map<number, number> {
  const t = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres') t.set(Number(d), cpuMicros(Number(d)));
    } catch {
      /* gone */
    }
  }
  return t;
}

/** PostgreSQL CPU between two readings: of the processes alive at the end (other sessions' too). */
function postgresDelta(a: Map<number, number>, b: Map<number, number>): number {
  let t = 0;
  for (const [pid, us] of b) t += us - (a.get(pid) ?? 0);
  return t;
}

const MODES = ['direct', 'embedded', 'postgres'] as const;
type Mode = (typeof MODES)[number];
const engines = new Map<Mode, Proc>();
const results = new Map<
  Mode,
  { cpu: number[]; pgCpu: number[]; p50: number[]; p99: number[]; drainMs: number[]; rps: number[] }
>();
let seq = 0;

async function round(mode: Mode, p: Proc, n: number, record: boolean): Promise<void> {
  const pool = new Pool(p.url, { connections: CONNECTIONS });
  const before = published;
  const lat: number[] = [];
  const cpu0 = cpuMicros(p.child.pid!);
  const pg0 = postgresCpu();
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const id = `wh-${++seq}`;
      const t = performance.now();
      const r = await pool.request({
        method: 'POST',
        path: '/hook',
        headers: { 'content-type': 'application/json', 'webhook-id': id },
        body: JSON.stringify({ key: `k-${i % 20}`, amount: i }),
      });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`${mode}: status ${r.statusCode}`);
      lat.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const answered = performance.now();
  while (published - before < n) await new Promise((r) => setTimeout(r, 2));
  const drained = performance.now();
  const cpu = cpuMicros(p.child.pid!) - cpu0;
  const pgCpu = postgresDelta(pg0, postgresCpu());
  await pool.close();
  if (!record) return;
  lat.sort((a, b) => a - b);
  const r = results.get(mode) ?? { cpu: [], pgCpu: [], p50: [], p99: [], drainMs: [], rps: [] };
  r.cpu.push(cpu / n);
  r.pgCpu.push(pgCpu / n);
  r.p50.push(lat[Math.floor(n * 0.5)]);
  r.p99.push(lat[Math.floor(n * 0.99)]);
  r.drainMs.push(drained - answered);
  r.rps.push(n / ((answered - t0) / 1000));
  results.set(mode, r);
}

const ticks0 = cpuTicks();
try {
  for (const m of MODES)
    engines.set(m, await spawnUrl(['--import', 'tsx', 'bench/outbox/engine.ts', m, hubUrl, schema], {}, 120_000));
  for (const m of MODES) await round(m, engines.get(m)!, Math.min(500, WEBHOOKS), false);
  for (let i = 0; i < ROUNDS; i++) for (const m of MODES) await round(m, engines.get(m)!, WEBHOOKS, true);
} finally {
  for (const p of engines.values()) await stop(p);
  hub.close();
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
}
const ticks1 = cpuTicks();
const best = (xs: number[]) => Math.min(...xs);
const f = (x: number) => x.toFixed(x < 10 ? 1 : 0);
console.log(
  `\n${WEBHOOKS} webhooks x ${ROUNDS} rounds per mode, ${CONNECTIONS} connections; steal ${f((100 * (ticks1.steal - ticks0.steal)) / (ticks1.total - ticks0.total))} %, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
console.log(
  '| mode | engine CPU µs per webhook (best; rounds) | PostgreSQL CPU µs per webhook (best) | answers/s (best) | answer p50 / p99 ms (best round) | last answer to last event published, ms (best) |',
);
console.log('|---|---|---|---|---|---|');
for (const m of MODES) {
  const r = results.get(m)!;
  const i = r.cpu.indexOf(best(r.cpu));
  console.log(
    `| ${m} | ${f(best(r.cpu))} (${r.cpu.map(f).join(', ')}) | ${f(best(r.pgCpu))} | ${f(Math.max(...r.rps))} | ${f(r.p50[i])} / ${f(r.p99[i])} | ${f(best(r.drainMs))} |`,
  );
}
