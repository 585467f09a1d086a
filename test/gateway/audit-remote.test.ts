// `engine audit` beside a running engine on the embedded store: PGlite is one process's, so the CLI
// reads the trail through that engine's console API. The engine runs (`engine run --env sandbox`)
// in a copy of the project made of links, with an embedded store of its own in .engine/store.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve('.');
let work: string;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'audit-remote-'));
  // links to the project's files; the store (.engine) is this copy's own
  for (const e of readdirSync(ROOT)) if (e !== '.engine' && e !== '.git') symlinkSync(join(ROOT, e), join(work, e));
  child = spawn(process.execPath, ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', '0'], {
    cwd: work,
    env: { ...process.env, LOG_LEVEL: 'info', ENGINE_STORE_POSTGRES_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('the engine did not start in 60 s')), 60_000);
    child.once('exit', (code) => fail(new Error(`the engine exited (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.includes('"engine started"')) return;
      clearTimeout(timer);
      ok(JSON.parse(line).url);
    });
  });
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null)
    await new Promise<void>((r) => {
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('engine audit beside a running engine on the embedded store', () => {
  it('lists and verifies through the engine holding the store', async () => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'ocp-gateway-subscription-key': 'not-a-key' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    const cli = (...args: string[]) =>
      run(process.execPath, ['bin/engine.js', 'audit', ...args, '--env', 'sandbox'], {
        cwd: work,
        timeout: 60_000,
        env: { ...process.env, ENGINE_STORE_POSTGRES_URL: '' },
      });
    // the trail writes in the background
    let listed = { stdout: '', stderr: '' };
    for (let i = 0; i < 20 && !/invalid_key/.test(listed.stdout); i++) {
      if (i) await new Promise((r) => setTimeout(r, 500));
      listed = await cli('list', '--kind', 'refusal');
    }
    expect(listed.stderr).toMatch(
      /^the embedded store is in use by the engine at http:\/\/.* working through its console API\n$/,
    );
    expect(listed.stdout).toMatch(/refusal\s+-\s+-\s+-\s+refused\s+invalid_key/);
    const v = await cli('verify');
    expect(v.stdout).toMatch(/^audit trail verified: 1 records; head: record 1 [0-9a-f]{64}\n$/);
  }, 120_000);
});
