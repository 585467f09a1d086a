// The walk of docs/failed-exchanges.md ("Try it in the sandbox"), run as a user would: the sandbox
// engine (`engine run routes/ --env sandbox --dev`, what `npm start -- --dev` runs) in a copy of the
// project (its routes and schemas copied, the rest linked, an embedded store of its own in
// .engine/store), and the page's own shell blocks run in bash there: the schema broken with sed,
// payments initiated with curl, `engine failed list` answered through the running engine's console
// API (the embedded store is the engine's), the schema fixed, the records replayed by `alice` in
// the engine's process, their events on the sandbox's event hub, and the audit naming her. Then
// the CLI's refusal, with the reason, when the engine's console is off or the engine does not answer.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { until } from '../hubvendor-payment-inbound/helpers.ts';

const ROOT = resolve('.');
const DOC = readFileSync(join(ROOT, 'docs/failed-exchanges.md'), 'utf8');
const STATUS_TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
const COPIED = ['routes', 'schemas'];
const PATH = `${dirname(process.execPath)}:${process.env.PATH}`;

/** The shell blocks of the page's sandbox walk, each as its commands (a block with continued lines is one). */
function walkBlocks(): string[][] {
  const section = DOC.slice(DOC.indexOf('## Try it in the sandbox'));
  const end = section.indexOf('\n## ', 5);
  const blocks = [...(end > 0 ? section.slice(0, end) : section).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.map((b) =>
    b.includes('\\\n')
      ? [b.replace(/^#.*\n/, '')]
      : b.split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('#')),
  );
}

let work: string;
let engine: ChildProcess | undefined;
let url = '';
let eventhub = '';
let log = '';

/** `node bin/engine.js run routes/ --env sandbox ...` in the copy, its output written to engine.log as `tee` would. */
async function startEngine(args: string[], env: Record<string, string> = {}): Promise<void> {
  await stopEngine();
  log = '';
  const file = createWriteStream(join(work, 'engine.log'));
  engine = spawn(process.execPath, ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', '0', ...args], {
    cwd: work,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = engine;
  await new Promise<void>((done, reject) => {
    const timer = setTimeout(() => reject(new Error(`the engine did not start in 30 s:\n${log}`)), 30_000);
    const onData = (d: Buffer) => {
      file.write(d);
      log += d;
      const m = /^(\{.*"msg":"engine started"\})$/m.exec(log);
      if (m) {
        const started = JSON.parse(m[1]!) as { url: string; sandbox: { eventhub: string } };
        url = started.url;
        eventhub = started.sandbox.eventhub;
        clearTimeout(timer);
        done();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (log += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the engine exited (${code}):\n${log}`));
    });
  });
}

async function stopEngine(): Promise<void> {
  const child = engine;
  engine = undefined;
  url = '';
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** One command of the page in bash, in the copy, its 127.0.0.1:8080 pointed at the engine. */
function sh(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const text = url ? command.replace(/127\.0\.0\.1:8080\b/g, new URL(url).host) : command;
  return new Promise((done, reject) => {
    const p = spawn('bash', ['--noprofile', '--norc', '-c', text], {
      cwd: work,
      env: { ...process.env, PATH, LOG_LEVEL: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.on('data', (c) => (stderr += c));
    p.on('error', reject);
    p.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const reloads = () => log.split('\n').filter((l) => /routes reloaded.*payment-status-inbound/.test(l)).length;
const through = (pid: number) =>
  `the embedded store is in use by the engine at ${url} (pid ${pid}); working through its console API\n`;

beforeAll(() => {
  // a copy of the project: what the walk edits is copied, the rest linked; no .engine: a store of its own
  work = mkdtempSync(join(tmpdir(), 'sandbox-walk-'));
  for (const e of readdirSync(ROOT)) {
    if (COPIED.includes(e)) cpSync(join(ROOT, e), join(work, e), { recursive: true });
    else if (!['.git', '.engine', 'engine.log'].includes(e)) symlinkSync(join(ROOT, e), join(work, e));
  }
});

afterAll(async () => {
  await stopEngine();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the failed exchanges walk on the sandbox', () => {
  it('breaks the schema, sees the messages fail, lists them through the engine, fixes, replays as alice, reads the audit', async () => {
    const [start, breakIt, initiate, watch, fixAndReplay] = walkBlocks();
    expect(start).toEqual(['npm start -- --dev | tee engine.log']);
    await startEngine(['--dev']);
    const pid = engine!.pid!;
    expect(JSON.parse(readFileSync(join(work, '.engine/store.lock.json'), 'utf8'))).toEqual({ pid, url });

    // the bug: released with sed, reloaded by --dev
    expect(breakIt).toHaveLength(1);
    expect((await sh(breakIt![0]!)).code).toBe(0);
    await until(async () => reloads() === 1, 15_000, 'the broken schema reloaded');

    // two payments: their status messages fail validation (the demo route's too, every 20 s)
    const orders: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await sh(initiate![0]!);
      expect(r.stdout).toMatch(/^PO\S+\n$/);
      orders.push(r.stdout.trim());
    }
    const records = async (q: string) =>
      (
        (await (await fetch(`${url}/console/api/failed?route=payment-status-inbound&limit=500&${q}`)).json()) as {
          records: { id: string; body: string; code: string; settledBy?: string; cause: string }[];
        }
      ).records;
    const ours = (rs: Awaited<ReturnType<typeof records>>) =>
      rs.filter((r) => orders.some((o) => r.body.includes(`"${o}"`)));
    // the hub settles a payment due today after about 2 s: its last status message (PROCESSED) failed too
    const settled = async () =>
      new Set(
        ours(await records('status=open'))
          .map((r) => JSON.parse(r.body) as { paymentOrderId: string; status: string })
          .filter((b) => b.status === 'PROCESSED')
          .map((b) => b.paymentOrderId),
      ).size === 2;
    await until(settled, 30_000, 'the status messages of both payments recorded');
    for (const r of ours(await records('status=open'))) {
      expect(r.code).toBe('GC025');
      expect(r.cause).toContain('/statusTime is required');
    }

    // the log line per record, and `engine failed list` through the running engine
    const [grep, list] = watch!;
    expect(Number((await sh(grep!)).stdout)).toBeGreaterThanOrEqual(2);
    expect(list).toBe('node bin/engine.js failed list');
    const before = ours(await records('status=open')).map((r) => r.id);
    const l = await sh(list!);
    expect(l.stderr).toBe(through(pid));
    expect(l.code).toBe(0);
    expect(l.stdout).toMatch(/^ID\s+ROUTE\s+SOURCE\s+CODE\s+STATUS\s+ATTEMPTS\s+LAST FAILED\s+CAUSE\n/);
    for (const id of before) expect(l.stdout).toContain(id);
    expect(l.stdout).toMatch(/payment-status-inbound {2}amqp {4}GC025 {2}open/);
    expect(l.stdout).toMatch(/\n\d+ shown of \d+ matching; \d+ open in all\n$/);
    const j = await sh(`${list} --json`);
    const listed = JSON.parse(j.stdout) as { records: { id: string }[]; open: number };
    expect(listed.records.map((r) => r.id)).toEqual(expect.arrayContaining(before));

    // the fix, reloaded; then the replay runs in the engine, as alice
    const [fix, replay, history] = fixAndReplay!;
    expect((await sh(fix!)).code).toBe(0);
    await until(async () => reloads() === 2, 15_000, 'the fixed schema reloaded');
    expect(replay).toBe('node bin/engine.js failed replay --route payment-status-inbound --all-matching --as alice');
    const r = await sh(replay!);
    expect(r.stderr).toBe(through(pid));
    expect(r.stdout).toMatch(
      /^\d+ open record\(s\) match \(route payment-status-inbound\)\nreplayed \d+, failed again 0 \(as alice\)\n$/,
    );
    expect(r.code).toBe(0);
    const replayed = ours(await records('status=replayed'));
    expect(new Set(replayed.map((x) => JSON.parse(x.body).paymentOrderId))).toEqual(new Set(orders));
    for (const x of replayed) expect(x.settledBy).toBe('alice');
    expect(ours(await records('status=open'))).toEqual([]);

    // their events on the sandbox's event hub sink
    const { events } = (await (await fetch(`${eventhub}/events`)).json()) as {
      events: { type: string; data: { bankReferenceId: string } }[];
    };
    const published = events.filter((e) => e.type === STATUS_TYPE && orders.includes(e.data.bankReferenceId));
    expect(new Set(published.map((e) => e.data.bankReferenceId))).toEqual(new Set(orders));

    // who replayed what
    expect(history).toBe('node bin/engine.js failed history');
    const h = await sh(history!);
    expect(h.stderr).toBe(through(pid));
    expect(h.stdout).toMatch(/^AT\s+ACTOR\s+VIA\s+ACTION\s+RECORDS\s+OUTCOME\n\S+\s+alice\s+console\s+replay\s+/);
    expect(h.stdout).toMatch(/replayed \d+, failed again 0 of \d+\n$/);

    // one record, and the audit filtered by actor (the API's actor query), through the engine too
    const show = await sh(`node bin/engine.js failed show ${replayed[0]!.id}`);
    expect(show.stdout).toMatch(/^status: +replayed \(by alice at \S+Z\)$/m);
    // refusals through the engine: the same words and exit code as on the store itself, nothing changed
    const again = await sh(`node bin/engine.js failed replay ${replayed[0]!.id} --as alice`);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr.slice(through(pid).length)).toMatch(
      new RegExp(
        `^engine failed: failed exchange ${replayed[0]!.id} .*; only open records are replayed or discarded\\n$`,
      ),
    );
    const unknown = '6f1c0000-0000-4000-8000-000000000000';
    const d = await sh(`node bin/engine.js failed discard ${unknown} --as alice`);
    expect(d.code).toBe(1);
    expect(d.stderr).toBe(through(pid) + `engine failed: no failed exchange '${unknown}'\n`);
    const nobody = await sh('node bin/engine.js failed history --as nobody --json');
    expect(JSON.parse(nobody.stdout)).toEqual({ entries: [] });

    await stopEngine();
    // the engine is gone: its listener no longer named, the lock free, the CLI opens the store itself
    expect(existsSync(join(work, '.engine/store.lock.json'))).toBe(false);
    expect(existsSync(join(work, '.engine/store.lock'))).toBe(false);
    const direct = await sh('node bin/engine.js failed history --as alice --json');
    expect(direct.stderr).toBe('');
    expect((JSON.parse(direct.stdout) as { entries: { via: string }[] }).entries).toMatchObject([{ via: 'console' }]);
  }, 180_000);

  it('is refused, with the reason, when the engine holding the store has its console off', async () => {
    await startEngine([], { ENGINE_CONSOLE_ENABLED: 'false' });
    const pid = engine!.pid!;
    const r = await sh('node bin/engine.js failed list');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^engine failed: the embedded store \\S+/\\.engine/store is in use by process ${pid}: an engine is running on this embedded store, .*` +
          `\\(not through its console API: the console of the engine at ${url.replace(/\./g, '\\.')} \\(pid ${pid}\\) is off .*\\)\\)\\n$`,
      ),
    );
    await stopEngine();
  }, 60_000);

  it('is refused, with the reason, when the engine named beside the lock does not answer', async () => {
    // a live process holds the lock and names a listener nobody serves
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    const port = await new Promise<number>((done) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    try {
      mkdirSync(join(work, '.engine/store'), { recursive: true });
      writeFileSync(join(work, '.engine/store.lock'), String(holder.pid));
      writeFileSync(
        join(work, '.engine/store.lock.json'),
        JSON.stringify({ pid: holder.pid, url: `http://127.0.0.1:${port}` }),
      );
      const r = await sh('node bin/engine.js failed replay --route payment-status-inbound --all-matching --as bob');
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `is in use by process ${holder.pid}: .*\\(not through its console API: the engine at http://127\\.0\\.0\\.1:${port} does not answer: .*ECONNREFUSED.* \\(pid ${holder.pid}\\)\\)\\n$`,
        ),
      );
    } finally {
      holder.kill('SIGKILL');
      rmSync(join(work, '.engine/store.lock'), { force: true });
      rmSync(join(work, '.engine/store.lock.json'), { force: true });
    }
  }, 60_000);
});
