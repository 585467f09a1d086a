// Measures of one target under a bounded sequential load of big requests: CPU time per request
// read from /proc, the peak RSS (VmHWM, reset before each load through /proc/<pid>/clear_refs),
// and the worst latency of a concurrent `GET /health/live` probe on its own connection.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Client } from 'undici';
import { cpuMicros, cpuTicks } from '../lib/harness.ts';

export interface Request {
  method: 'POST' | 'GET';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** the status every answer must have */ status: number;
}

export interface LoadMeasure {
  requests: number;
  cpuUsPerRequest: number;
  /** median wall time of one request, ms */
  medianMs: number;
}

export interface ProbeMeasure {
  /** worst and 99th percentile latency of the probe while the load ran, ms */
  probeWorstMs: number;
  probeP99Ms: number;
  probes: number;
  /** peak RSS during the load minus the RSS before it, MiB */
  peakAboveIdleMiB: number;
  idleMiB: number;
}

const mib = (kb: number) => Math.round(kb / 1024);

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Resets the peak RSS the kernel keeps for the process (VmHWM), so the next read is this load's. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** One request; resolves with status and body text. */
export async function send(client: Client, r: Request): Promise<{ status: number; text: string }> {
  const res = await client.request({
    method: r.method,
    path: r.path,
    body: r.body,
    headers: { 'content-type': 'application/json', ...r.headers },
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Requests one after the other on one connection for `seconds` (at least `min` of them). */
async function sequential(
  client: Client,
  r: Request,
  seconds: number,
  min: number,
  durations?: number[],
): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  while (performance.now() < end || n < min) {
    const t = performance.now();
    const { status } = await send(client, r);
    if (status !== r.status) throw new Error(`${r.path}: status ${status} under load, expected ${r.status}`);
    durations?.push(performance.now() - t);
    n++;
  }
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** CPU per request of `pid` under the load alone (no probe adding its own work). */
export async function cpuLoad(url: string, pid: number, r: Request, seconds: number, min = 3): Promise<LoadMeasure> {
  const client = new Client(url, { bodyTimeout: 60_000, headersTimeout: 60_000 });
  try {
    await sequential(client, r, 0, 2); // warm-up
    const durations: number[] = [];
    const cpu0 = cpuMicros(pid);
    const n = await sequential(client, r, seconds, min, durations);
    return { requests: n, cpuUsPerRequest: (cpuMicros(pid) - cpu0) / n, medianMs: median(durations) };
  } finally {
    await client.close();
  }
}

/** The same load with a probe every `everyMs` on another connection; peak RSS of the load. */
export async function probedLoad(
  url: string,
  pid: number,
  r: Request,
  seconds: number,
  min = 3,
  everyMs = 2,
): Promise<ProbeMeasure> {
  const client = new Client(url, { bodyTimeout: 60_000, headersTimeout: 60_000 });
  const probeClient = new Client(url);
  try {
    await send(probeClient, { method: 'GET', path: '/health/live', status: 200 });
    const idle = statusKb(pid, 'VmRSS');
    resetPeak(pid);
    const latencies: number[] = [];
    let running = true;
    const probe = (async () => {
      while (running) {
        const t = performance.now();
        const { status } = await send(probeClient, { method: 'GET', path: '/health/live', status: 200 });
        if (status !== 200) throw new Error(`probe: status ${status}`);
        latencies.push(performance.now() - t);
        await new Promise((res) => setTimeout(res, everyMs));
      }
    })();
    try {
      await sequential(client, r, seconds, min);
    } finally {
      running = false;
      await probe;
    }
    latencies.sort((a, b) => a - b);
    return {
      probeWorstMs: latencies.at(-1) ?? NaN,
      probeP99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
      probes: latencies.length,
      peakAboveIdleMiB: mib(statusKb(pid, 'VmHWM') - idle),
      idleMiB: mib(idle),
    };
  } finally {
    await client.close();
    await probeClient.close();
  }
}

/** The machine while a benchmark ran: load average and the share of time stolen by the hypervisor. */
export function machine(): () => string {
  const t0 = cpuTicks();
  return () => {
    const t1 = cpuTicks();
    const steal = (100 * (t1.steal - t0.steal)) / Math.max(1, t1.total - t0.total);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    return `load average ${load}, steal ${steal.toFixed(1)} %`;
  };
}

/** What `bin/engine.js` runs: the build in dist/ when it is fresh (as shipped), else the TypeScript through tsx. */
export function engineBuild(): string {
  const newest = (dir: string) =>
    Math.max(
      0,
      ...readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.ts'))
        .map((e) => statSync(`${e.parentPath}/${e.name}`).mtimeMs),
    );
  const built = 'dist/engine.cjs';
  return existsSync(built) && statSync(built).mtimeMs >= Math.max(newest('engine'), newest('sandbox'))
    ? 'engine from the build in dist/'
    : 'engine from the TypeScript sources through tsx (no fresh build: run `npm run build` to measure what ships)';
}
