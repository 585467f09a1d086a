// ACH batch benchmark: the batch routes through the engine against the hand-written baseline
// (bench/achvendor-batch-payment/baseline.ts), each in its own process, the ACH vendor simulator in a third.
// Batches of 1 / 100 / 1,000 / 5,000 valid entries, validated (?validate_only=true) and submitted,
// in interleaved rounds: CPU per entry (the load alone), then the same load with a /health/live
// probe every 2 ms on another connection (its worst latency) and the peak RSS above idle. Last, a
// 10,000-entry body (over batch.max.entries, refused). Every answer is checked before measuring.
// `npm run bench:batch` (SECONDS=3 ROUNDS=2 SIZES=1,100,1000,5000 to change).
import { Client } from 'undici';
import { spawnUrl, stop } from '../lib/harness.ts';
import { achBatch, validationSummary } from './batches.ts';
import { cpuLoad, engineBuild, machine, probedLoad, send, type Request } from './measure.ts';

const seconds = Number(process.env.SECONDS ?? 3);
const rounds = Number(process.env.ROUNDS ?? 2);
const sizes = (process.env.SIZES ?? '1,100,1000,5000').split(',').map(Number);
const tsx = ['--import', 'tsx'];
const started = machine();

const sim = await spawnUrl([...tsx, 'bench/achvendor-batch-payment/achvendor-sim.ts']);
const targets: { name: string; url: string; pid: number; stop: () => Promise<void> }[] = [];
try {
  const baseline = await spawnUrl([...tsx, 'bench/achvendor-batch-payment/baseline.ts', sim.url]);
  targets.push({ name: 'baseline', url: baseline.url, pid: baseline.child.pid!, stop: () => stop(baseline) });
  const engine = await spawnUrl(
    [
      'bin/engine.js',
      'run',
      'routes/achvendor-batch-payment',
      '--env',
      'development',
      '--port',
      '0',
      '--set',
      `achvendor-base-url=${sim.url}`,
      '--set',
      'achvendor-client-key=sandbox-achvendor-client-key',
    ],
    { LOG_LEVEL: 'info' },
  );
  targets.push({ name: 'engine', url: engine.url, pid: engine.child.pid!, stop: () => stop(engine) });

  type Work = { label: string; entries: number; request: Request; check: (text: string) => void };
  const works: Work[] = [];
  for (const n of sizes) {
    const batch = achBatch(n);
    const body = JSON.stringify(batch);
    const summary = JSON.stringify(validationSummary(batch));
    works.push({
      label: 'validate',
      entries: n,
      request: { method: 'POST', path: '/batch-payments/credit-batches?validate_only=true', body, status: 200 },
      check: (t) => {
        if (JSON.stringify(JSON.parse(t)) !== summary) throw new Error(`validate ${n}: ${t.slice(0, 300)}`);
      },
    });
    works.push({
      label: 'submit',
      entries: n,
      request: { method: 'POST', path: '/batch-payments/credit-batches', body, status: 202 },
      check: (t) => {
        const a = JSON.parse(t);
        if (a.batch_reference !== batch.batch_reference || a.status !== 'RECEIVED' || a.entry_count !== n)
          throw new Error(`submit ${n}: ${t.slice(0, 300)}`);
      },
    });
  }
  const over = achBatch(10_000, 'BENCH-OVER');
  const overWork: Work = {
    label: 'over the limit (refused)',
    entries: 10_000,
    request: { method: 'POST', path: '/batch-payments/credit-batches', body: JSON.stringify(over), status: 400 },
    check: (t) => {
      if (!t.includes('the batch holds 10000 entries; a batch takes at most 5000'))
        throw new Error(`over the limit: ${t.slice(0, 300)}`);
    },
  };

  // correctness first: each target's answer to each work
  for (const t of targets) {
    const client = new Client(t.url);
    for (const w of [...works, overWork]) {
      const { status, text } = await send(client, w.request);
      if (status !== w.request.status)
        throw new Error(`${t.name} ${w.label} ${w.entries}: status ${status}: ${text.slice(0, 300)}`);
      w.check(text);
    }
    await client.close();
  }

  type Row = {
    cpuUsPerEntry: number[];
    medianMs: number[];
    probeWorstMs: number[];
    probeP99Ms: number[];
    peakMiB: number[];
    idleMiB: number[];
  };
  const rows = new Map<string, Row>();
  const row = (key: string) =>
    rows.get(key) ??
    (rows.set(key, { cpuUsPerEntry: [], medianMs: [], probeWorstMs: [], probeP99Ms: [], peakMiB: [], idleMiB: [] }),
    rows.get(key)!);
  for (let r = 1; r <= rounds; r++) {
    for (const w of [...works, overWork]) {
      for (const t of targets) {
        const secs = w === overWork ? 0 : seconds;
        const load = await cpuLoad(t.url, t.pid, w.request, secs);
        const probed = await probedLoad(t.url, t.pid, w.request, secs);
        const x = row(`${w.label}|${w.entries}|${t.name}`);
        x.cpuUsPerEntry.push(load.cpuUsPerRequest / w.entries);
        x.medianMs.push(load.medianMs);
        x.probeWorstMs.push(probed.probeWorstMs);
        x.probeP99Ms.push(probed.probeP99Ms);
        x.peakMiB.push(probed.peakAboveIdleMiB);
        x.idleMiB.push(probed.idleMiB);
        process.stderr.write(
          `round ${r}: ${t.name} ${w.label} ${w.entries}: ${(load.cpuUsPerRequest / w.entries).toFixed(1)} µs CPU/entry (${load.requests} requests), probe worst ${probed.probeWorstMs.toFixed(1)} ms, peak +${probed.peakAboveIdleMiB} MiB\n`,
        );
      }
    }
  }

  const min = (xs: number[]) => Math.min(...xs);
  const max = (xs: number[]) => Math.max(...xs);
  const f1 = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  console.log(
    `\nACH batch routes, engine against the hand-written limit, ${rounds} interleaved rounds of ${seconds} s per load, ${new Date().toISOString()}, node ${process.version}, ${engineBuild()}; ${started()}\n`,
  );
  console.log(
    '| work | entries | engine CPU µs/entry | limit CPU µs/entry | CPU ratio | engine median ms | limit median ms | probe worst ms engine (limit) | probe p99 ms engine | engine peak RSS above idle MiB (limit) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const w of [...works, overWork]) {
    const e = rows.get(`${w.label}|${w.entries}|engine`)!;
    const b = rows.get(`${w.label}|${w.entries}|baseline`)!;
    // CPU: the best round (other work on the machine only adds); probe and memory: the worst round
    console.log(
      `| ${w.label} | ${w.entries} | ${f1(min(e.cpuUsPerEntry))} | ${f1(min(b.cpuUsPerEntry))} | ${(min(e.cpuUsPerEntry) / min(b.cpuUsPerEntry)).toFixed(2)} | ${f1(min(e.medianMs))} | ${f1(min(b.medianMs))} | ${f1(max(e.probeWorstMs))} (${f1(max(b.probeWorstMs))}) | ${f1(max(e.probeP99Ms))} | ${max(e.peakMiB)} (${max(b.peakMiB)}) |`,
    );
  }
  const idle = (name: string) => min(rows.get(`validate|${sizes[0]}|${name}`)!.idleMiB);
  console.log(
    `\nidle RSS before the first load: engine ${idle('engine')} MiB, limit ${idle('baseline')} MiB; CPU per entry includes reading and parsing the body. Limits of issue 15: rules <= 10 µs CPU per entry, probe <= 50 ms, 10,000-entry body <= 100 MB above idle.`,
  );
} finally {
  for (const t of targets) await t.stop();
  await stop(sim);
}
