// The load generator of the strict benchmarks: wrk (C, one thread, a few µs per request), so that the
// generator costs its core little and the target is what saturates. Without wrk on the machine
// (`apt-get install -y wrk`), autocannon stands in and every table says so.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface Request {
  method: 'POST' | 'GET';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface Run {
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** socket errors and answers that are not 2xx */
  failures: number;
  /** requests the generator gave up on (wrk: after 2 s): a saturated target's queue, not a wrong answer */
  timeouts: number;
}

export const hasWrk = spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;

export function generatorLine(): string {
  return hasWrk
    ? 'load: wrk, 1 thread'
    : 'load: autocannon (wrk is not installed: `apt-get install -y wrk`); autocannon costs its core more';
}

const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
let scripts = 0;

/** A wrk Lua script setting the method, headers and body of every request. */
function script(r: Request): string {
  const file = join(dir, `r${scripts++}.lua`);
  const headers = { 'content-type': 'application/json', ...r.headers };
  const lua = [
    `wrk.method = "${r.method}"`,
    ...Object.entries(headers).map(([k, v]) => `wrk.headers["${k}"] = [==[${v}]==]`),
    r.body === undefined ? '' : `wrk.body = [==[${r.body}]==]`,
  ];
  writeFileSync(file, lua.join('\n') + '\n');
  return file;
}

const UNIT: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
function ms(text: string): number {
  const m = /([\d.]+)(us|ms|s|m)/.exec(text);
  return m ? Number(m[1]) * UNIT[m[2]] : NaN;
}

function wrk(url: string, r: Request, connections: number, seconds: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script(r), url + r.path];
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${out}`));
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
      const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      resolve({
        rps: Math.round(num(/Requests\/sec:\s+([\d.]+)/)),
        requests: num(/(\d+) requests in/),
        p50Ms: ms(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''),
        p99Ms: ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
        failures:
          num(/Non-2xx or 3xx responses: (\d+)/) +
          (socketErrors ? socketErrors.slice(1, 4).reduce((a, b) => a + Number(b), 0) : 0),
        timeouts: socketErrors ? Number(socketErrors[4]) : 0,
      });
    });
  });
}

async function cannon(url: string, r: Request, connections: number, seconds: number): Promise<Run> {
  const res = await autocannon({
    url: url + r.path,
    method: r.method,
    connections,
    pipelining: 1,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...r.headers },
    body: r.body,
  });
  return {
    rps: Math.round(res.requests.average),
    requests: res.requests.total,
    p50Ms: res.latency.p50,
    p99Ms: res.latency.p99,
    failures: res.errors + res.non2xx,
    timeouts: res.timeouts,
  };
}

/** Bounded load on one URL: `seconds` long, `connections` kept-alive connections, no pipelining. */
export function load(url: string, r: Request, connections: number, seconds: number): Promise<Run> {
  return hasWrk ? wrk(url, r, connections, seconds) : cannon(url, r, connections, seconds);
}
