// The ACH target of issue 31: `POST /batch-payments/credit-batches?validate_only=true` of 5,000
// valid entries (bench/achvendor-batch-payment/batches.ts) costs at most 8 µs of the engine process's
// CPU per entry (reading, parsing, schema, the eleven rules, the answer) with the console off, at most
// 1.5x that with it on, and a `/health/live` probe on another connection waits at most 50 ms behind
// it. Two engines (console off and on) pinned to the target core, the ACH vendor simulator and this
// process on the other; samples of the two alternate, each the CPU time (/proc/<pid>/stat) of a few
// requests in a row on one connection after a warm-up, and the median sample is kept.
// `node --import tsx bench/strict/ach.ts` prints the result (SAMPLES=9 PER_SAMPLE=8 WARMUP=8 ENTRIES=5000).
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Client } from 'undici';
import { cpuMicros, spawnUrl, stop, type Proc } from '../lib/harness.ts';
import { onTargetCore, pinningLine } from '../lib/pinning.ts';
import { achBatch, validationSummary } from '../achvendor-batch-payment/batches.ts';
import { probedLoad, send, type Request } from '../achvendor-batch-payment/measure.ts';

export interface AchStrict {
  /** µs of the engine's CPU per entry, the median sample, console off and on */
  offUsPerEntry: number;
  onUsPerEntry: number;
  /** the probe's worst wait with the console off (the target's configuration), ms */
  worstProbeMs: number;
  /** the same with the console on, which records every exchange's bodies (reported beside it) */
  onWorstProbeMs: number;
}

const int = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

function engine(vendor: string, consoleOn: boolean): Promise<Proc> {
  const set = [`achvendor-base-url=${vendor}`, 'achvendor-client-key=sandbox-achvendor-client-key'];
  return spawnUrl(
    [
      'bin/engine.js',
      'run',
      'routes/achvendor-batch-payment',
      '--env',
      'development',
      '--port',
      '0',
      ...set.flatMap((s) => ['--set', s]),
    ],
    { LOG_LEVEL: 'info', ENGINE_CONSOLE_ENABLED: String(consoleOn) },
    60_000,
    onTargetCore,
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** µs of the target's CPU per entry over `n` requests in a row. */
async function sample(client: Client, p: Proc, r: Request, n: number, entries: number): Promise<number> {
  const cpu0 = cpuMicros(p.child.pid!);
  for (let i = 0; i < n; i++) {
    const { status, text } = await send(client, r);
    if (status !== r.status) throw new Error(`status ${status}: ${text.slice(0, 300)}`);
  }
  return (cpuMicros(p.child.pid!) - cpu0) / (n * entries);
}

export async function achStrict(log: (line: string) => void = () => {}): Promise<AchStrict> {
  const entries = int('ENTRIES', 5000);
  const samples = int('SAMPLES', 9);
  const perSample = int('PER_SAMPLE', 8);
  const warmup = int('WARMUP', 8);
  const batch = achBatch(entries);
  const request: Request = {
    method: 'POST',
    path: '/batch-payments/credit-batches?validate_only=true',
    body: JSON.stringify(batch),
    status: 200,
  };
  const summary = JSON.stringify(validationSummary(batch));

  const sim = await spawnUrl(['--import', 'tsx', 'bench/achvendor-batch-payment/achvendor-sim.ts']);
  const started: Proc[] = [];
  try {
    const off = await engine(sim.url, false);
    started.push(off);
    const on = await engine(sim.url, true);
    started.push(on);
    const targets = [
      { name: 'console off', p: off, client: new Client(off.url, { bodyTimeout: 60_000, headersTimeout: 60_000 }) },
      { name: 'console on', p: on, client: new Client(on.url, { bodyTimeout: 60_000, headersTimeout: 60_000 }) },
    ];
    const perEntry: number[][] = [[], []];
    try {
      for (const t of targets) {
        // the answer first: nothing is measured of a wrong one
        const { status, text } = await send(t.client, request);
        if (status !== 200 || JSON.stringify(JSON.parse(text)) !== summary)
          throw new Error(`${t.name}: ${status} ${text.slice(0, 300)}`);
        for (let i = 0; i < warmup; i++) await send(t.client, request);
      }
      for (let s = 0; s < samples; s++) {
        for (let i = 0; i < targets.length; i++) {
          perEntry[i].push(await sample(targets[i].client, targets[i].p, request, perSample, entries));
          log(`  sample ${s + 1}, ${targets[i].name}: ${perEntry[i].at(-1)!.toFixed(2)} µs CPU per entry`);
        }
      }
    } finally {
      await Promise.all(targets.map((t) => t.client.close()));
    }
    // the probe: every 2 ms on a connection of its own while batches run one after the other
    const worst: number[] = [];
    for (const t of targets) {
      const probed = await probedLoad(t.p.url, t.p.child.pid!, request, int('PROBE_SECONDS', 3));
      log(`  ${t.name}: probe worst ${probed.probeWorstMs.toFixed(1)} ms, p99 ${probed.probeP99Ms.toFixed(1)} ms`);
      worst.push(probed.probeWorstMs);
    }
    return {
      offUsPerEntry: median(perEntry[0]),
      onUsPerEntry: median(perEntry[1]),
      worstProbeMs: worst[0],
      onWorstProbeMs: worst[1],
    };
  } finally {
    await Promise.all(started.map(stop));
    await stop(sim);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const log = (line: string) => process.stderr.write(line + '\n');
  const r = await achStrict(log);
  const ratio = r.onUsPerEntry / r.offUsPerEntry;
  console.log(
    `ACH validate, ${int('ENTRIES', 5000)} entries: ${r.offUsPerEntry.toFixed(2)} µs CPU per entry console off (target <= 8), ` +
      `${r.onUsPerEntry.toFixed(2)} on (ratio ${ratio.toFixed(2)}, target <= 1.5); a probe waits at most ` +
      `${r.worstProbeMs.toFixed(1)} ms (target <= 50; console on ${r.onWorstProbeMs.toFixed(1)} ms); ${pinningLine()}, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
  );
}
