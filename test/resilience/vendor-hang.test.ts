// The screening vendor hanging does not slow the other connectors: the engine (in its own process,
// on the embedded sandbox) serves the FX route under bounded load, first alone, then while the
// screening simulator holds every create-and-screen call for a minute (a fault through its control
// API) and 160 callers keep asking for screenings. The shipped bulkhead of the screening client (64
// at once, 64 waiting up to 1 s) lets exactly 64 calls reach the hanging vendor; the others are
// refused with 503 (at once, or after their 1 s in the queue), and the FX p99 stays within noise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import autocannon from 'autocannon';

const SERVE = fileURLToPath(new URL('./serve-sandbox-engine.ts', import.meta.url));
const CLIENT = 'screenvendor-screening/screenvendor';
const BULKHEAD = { maxConcurrent: 64, maxQueue: 64, queueTimeout: 1000 };
const SECONDS = 10;
const FX_CONNECTIONS = 10;
const SCREENING_CALLERS = 160;
const SET = { 'screening-v2:http.client.response.timeout': '60000' };

let child: ChildProcess;
let url: string;
let screenvendor: string;

beforeAll(async () => {
  child = spawn(
    process.execPath,
    ['--import', 'tsx', SERVE, 'routes/hubvendor-foreign-exchange', 'routes/screenvendor-screening'],
    // the hanging calls outlast the run (shipped: 15 s), so that the same 64 hold the bulkhead throughout
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ENGINE_SET: JSON.stringify(SET) } },
  );
  const ready = await new Promise<{ url: string; sandbox: Record<string, string> }>((resolve, reject) => {
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      const m = /READY (\{.*\})\n/.exec(err);
      if (m) resolve(JSON.parse(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`engine process exited (${code}): ${err}`)));
  });
  url = ready.url;
  screenvendor = ready.sandbox.screenvendor;
});
afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function refusedByBulkhead(): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('engine_client_calls_refused_total{') &&
        l.includes(`client="${CLIENT}"`) &&
        l.includes('by="bulkhead"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** FX lookups over FX_CONNECTIONS connections for `seconds`: autocannon's latency figures, ms. */
async function fxLoad(seconds: number): Promise<{ p50: number; p99: number; rps: number; bad: number }> {
  const r = await autocannon({
    url: `${url}/foreign-exchange/exchange-rates`,
    method: 'POST',
    connections: FX_CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }),
  });
  return {
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: Math.round(r.requests.average),
    bad: r.errors + r.timeouts + r.non2xx,
  };
}

let seq = 0;
const person = () => ({
  customerReference: `CUST-HANG-${++seq}`,
  person: {
    firstName: 'John',
    lastName: 'Smith',
    dateOfBirth: '1962-04-17',
    nationality: ['GB'],
    gender: 'MALE',
    identifications: [{ type: 'PASSPORT', number: 'X123', issuingCountry: 'GB' }],
  },
});

describe('the screening vendor hanging', () => {
  it('holds 64 screening calls, refuses the rest with 503, and leaves the FX p99 within noise', async () => {
    // a screening works while the vendor is well
    const pool = new Pool(url, { connections: SCREENING_CALLERS + 10 });
    const ok = await pool.request({
      method: 'POST',
      path: '/customer-screening',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(person()),
    });
    expect(ok.statusCode).toBe(200);
    await ok.body.dump();

    await fxLoad(2); // warm-up
    const base = await fxLoad(SECONDS);

    await fetch(`${screenvendor}/__sandbox/requests`, { method: 'DELETE' });
    const fault = await fetch(`${screenvendor}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'create-and-screen', delayMs: 60_000 }),
    });
    expect(fault.status).toBe(201);
    const refused0 = await refusedByBulkhead();
    const hangStart = Date.now();

    // SCREENING_CALLERS callers, each asking again 1 s after an answer, until told to stop
    let stop = false;
    const answers: { status: number; ms: number; code?: string; retryAfter?: string }[] = [];
    const caller = async (): Promise<void> => {
      while (!stop) {
        const t = performance.now();
        try {
          const r = await pool.request({
            method: 'POST',
            path: '/customer-screening',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(person()),
          });
          const body = (await r.body.json()) as { code?: string };
          const ra = r.headers['retry-after'];
          answers.push({
            status: r.statusCode,
            ms: performance.now() - t,
            code: body.code,
            retryAfter: typeof ra === 'string' ? ra : undefined,
          });
        } catch {
          return; // the pool was destroyed under a hanging call
        }
        await sleep(1000);
      }
    };
    const callers = Array.from({ length: SCREENING_CALLERS }, caller);
    await sleep(1500); // the bulkhead full, its queue cycling
    const hang = await fxLoad(SECONDS);
    stop = true;
    await sleep(BULKHEAD.queueTimeout + 500); // the queued calls answered; only the hanging ones left
    const refused = (await refusedByBulkhead()) - refused0;
    const settled = answers.length;
    const vendorCalls = (await fetch(`${screenvendor}/__sandbox/requests?pathMatch=create-and-screen`).then((r) =>
      r.json(),
    )) as { requests: { time: number }[] };
    await fetch(`${screenvendor}/__sandbox/faults`, { method: 'DELETE' });
    await pool.destroy();
    await Promise.all(callers);

    const elapsed = Date.now() - hangStart;
    const quick = answers.filter((a) => a.ms < 200).length;
    const queuedThenRefused = answers.filter((a) => a.ms >= 200).length;
    const slowest = Math.max(...answers.map((a) => a.ms));
    const bound = 2 * base.p99 + 10;
    console.log(
      `FX alone: ${base.rps} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms; ` +
        `FX with the screening vendor hanging: ${hang.rps} req/s, p50 ${hang.p50} ms, p99 ${hang.p99} ms ` +
        `(bound ${bound} ms); screening over ${(elapsed / 1000).toFixed(1)} s: ${vendorCalls.requests.length} reached ` +
        `the vendor (hanging), ${answers.length} answered 503 (${quick} at once, ${queuedThenRefused} after the queue, ` +
        `slowest ${slowest.toFixed(0)} ms), refused by the bulkhead (metric): ${refused}`,
    );

    // the hanging vendor sees the bulkhead's places, no more
    expect(vendorCalls.requests).toHaveLength(BULKHEAD.maxConcurrent);
    // every other screening answered 503 GC027 with Retry-After, at once or after its wait in the queue
    expect(answers.length).toBeGreaterThanOrEqual(SCREENING_CALLERS - BULKHEAD.maxConcurrent);
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.code).toBe('GC027');
      expect(a.retryAfter).toBeDefined();
    }
    expect(quick).toBeGreaterThanOrEqual(SCREENING_CALLERS - BULKHEAD.maxConcurrent - BULKHEAD.maxQueue);
    expect(slowest).toBeLessThan(BULKHEAD.queueTimeout + 1000);
    expect(refused).toBe(settled);
    // FX untouched: no failures, the p99 within noise of the run without the hang
    expect(base.bad).toBe(0);
    expect(hang.bad).toBe(0);
    expect(hang.p99).toBeLessThanOrEqual(bound);
  }, 90_000);
});
