// Benchmark harness: child processes for the simulator and each target, bounded autocannon load
// on 127.0.0.1, and the measures we report (req/s, latency percentiles, RSS of the target).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface Proc {
  child: ChildProcess;
  url: string;
}

/** Spawns `node <args>` and resolves with the first URL it prints (plain or in a JSON log line). */
export function spawnUrl(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
  launch: (args: string[]) => [command: string, args: string[]] = (a) => [process.execPath, a],
): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const [command, argv] = launch(args);
    const child = spawn(command, argv, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL from ${args.join(' ')}`));
    }, timeoutMs);
    // the listening URL: the engine's `engine started` log line (its other JSON lines may name other
    // URLs, e.g. a trace collector), or the first URL a plain-text helper prints
    const urlOf = (line: string): string | undefined => {
      if (line.startsWith('{')) {
        try {
          const j = JSON.parse(line);
          return j.msg === 'engine started' ? j.url : undefined;
        } catch {
          /* not JSON */
        }
      }
      return /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
    };
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const url = urlOf(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (url) {
          clearTimeout(timer);
          child.stdout!.removeAllListeners('data');
          child.stdout!.resume();
          resolve({ child, url });
          return;
        }
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}`));
    });
  });
}

export async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null) return;
  p.child.removeAllListeners('exit');
  await new Promise<void>((r) => {
    p.child.once('exit', () => r());
    p.child.kill('SIGTERM');
    setTimeout(() => p.child.kill('SIGKILL'), 5000).unref();
  });
}

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  rssMiB: number;
  cpuUsPerReq: number;
  stealPct: number;
}

/** Time the hypervisor gave to other guests (the `steal` column of /proc/stat), and all time, in ticks. */
export function cpuTicks(): { steal: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { steal: f[7] ?? 0, total: f.slice(0, 8).reduce((a, b) => a + b, 0) };
}

/** user + system CPU time of a process in microseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10_000;
}

export interface Load {
  method: 'POST' | 'GET';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

export async function measure(name: string, p: Proc, load: Load): Promise<LoadResult> {
  const opts = {
    url: p.url + load.path,
    method: load.method,
    connections: load.connections,
    pipelining: 1,
    headers: { 'content-type': 'application/json', ...load.headers },
    body: load.body === undefined ? undefined : JSON.stringify(load.body),
  };
  await autocannon({ ...opts, duration: load.warmupSeconds });
  const cpu0 = cpuMicros(p.child.pid!);
  const t0 = cpuTicks();
  const r = await autocannon({ ...opts, duration: load.seconds });
  const cpu = cpuMicros(p.child.pid!) - cpu0;
  const t1 = cpuTicks();
  return {
    name,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    rssMiB: rssMiB(p.child.pid!),
    cpuUsPerReq: Math.round(cpu / Math.max(1, r.requests.total)),
    stealPct: Math.round((100 * (t1.steal - t0.steal)) / Math.max(1, t1.total - t0.total)),
  };
}

export function table(results: LoadResult[], baseline: string): string {
  const base = results.find((r) => r.name === baseline)!;
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.cpuUsPerReq} | ${r.rssMiB} | ${r.errors + r.non2xx} | ${r.stealPct} | ${(r.rps / base.rps).toFixed(2)} | ${(base.cpuUsPerReq / r.cpuUsPerReq).toFixed(2)} |`,
  );
  return [
    '| target | req/s | p50 ms | p99 ms | CPU µs/req | RSS MiB | errors | steal % | throughput ratio | CPU efficiency ratio |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * Measures each target once per round, rounds interleaved, and keeps the best round of each (other
 * work on a shared machine only ever slows a measurement down) and every round's results.
 */
export async function interleaved(
  targets: [string, Proc, Load][],
  rounds: number,
): Promise<{ best: LoadResult[]; perRound: LoadResult[][] }> {
  const perRound: LoadResult[][] = [];
  for (let r = 0; r < rounds; r++) {
    const row: LoadResult[] = [];
    for (const [name, proc, load] of targets) {
      const m = await measure(name, proc, load);
      process.stderr.write(
        `round ${r + 1}: ${name}: ${m.rps} req/s, ${m.cpuUsPerReq} µs CPU/req, steal ${m.stealPct} %\n`,
      );
      row.push(m);
    }
    perRound.push(row);
  }
  const best = targets.map((_, i) => perRound.map((row) => row[i]).reduce((a, b) => (b.rps > a.rps ? b : a)));
  return { best, perRound };
}

/** One line per round: each target's req/s (steal %) and the ratio of the last target to the first. */
export function roundsTable(perRound: LoadResult[][]): string {
  const names = perRound[0].map((m) => m.name);
  return [
    `| round | ${names.map((n) => `${n} req/s (steal %)`).join(' | ')} | throughput ratio | CPU efficiency ratio |`,
    `|---|${names.map(() => '---|').join('')}---|---|`,
    ...perRound.map(
      (row, i) =>
        `| ${i + 1} | ${row.map((m) => `${m.rps} (${m.stealPct})`).join(' | ')} | ${(row.at(-1)!.rps / row[0].rps).toFixed(2)} | ${(row[0].cpuUsPerReq / row.at(-1)!.cpuUsPerReq).toFixed(2)} |`,
    ),
  ].join('\n');
}

/**
 * The engine against a hand-written baseline: the simulator, the baseline program and the engine
 * (running `routesDir`) each in their own process, measured in interleaved rounds.
 */
export async function engineVersusBaseline(o: {
  baseline: [name: string, script: string];
  engine: [name: string, routesDir: string];
  load: Load;
  rounds: number;
  varying?: string[];
}): Promise<{ best: LoadResult[]; perRound: LoadResult[][] }> {
  const tsx = ['--import', 'tsx'];
  const sim = await spawnUrl([...tsx, 'bench/lib/sim-process.ts']);
  try {
    const baseline = await spawnUrl([...tsx, o.baseline[1], sim.url]);
    const engine = await spawnUrl(
      ['bin/engine.js', 'run', o.engine[1], '--port', '0', '--set', `hubvendor-base-url=${sim.url}`],
      { LOG_LEVEL: 'info' },
    ).catch(async (e) => {
      await stop(baseline);
      throw e;
    });
    try {
      await sameAnswer(
        [
          [o.baseline[0], baseline],
          [o.engine[0], engine],
        ],
        o.load,
        o.varying ?? [],
      );
      return await interleaved(
        [
          [o.baseline[0], baseline, o.load],
          [o.engine[0], engine, o.load],
        ],
        o.rounds,
      );
    } finally {
      await stop(baseline);
      await stop(engine);
    }
  } finally {
    await stop(sim);
  }
}

/**
 * One request to each target: the answers must be successful and equal (but for `varying` fields, e.g. ids),
 * or nothing is measured.
 */
export async function sameAnswer(targets: [string, Proc][], load: Load, varying: string[]): Promise<void> {
  const answers: { name: string; status: number; body: string }[] = [];
  for (const [name, p] of targets) {
    const res = await fetch(p.url + load.path, {
      method: load.method,
      headers: { 'content-type': 'application/json', ...load.headers },
      body: load.body === undefined ? undefined : JSON.stringify(load.body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${name} answered ${res.status}: ${text.slice(0, 300)}`);
    answers.push({
      name,
      status: res.status,
      body: JSON.stringify(JSON.parse(text), (k, v) => (varying.includes(k) ? '(varies)' : v)),
    });
  }
  for (const a of answers.slice(1)) {
    if (a.status !== answers[0].status || a.body !== answers[0].body) {
      throw new Error(
        `${a.name} and ${answers[0].name} answer differently:\n${a.status} ${a.body}\n${answers[0].status} ${answers[0].body}`,
      );
    }
  }
}
