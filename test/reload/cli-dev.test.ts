// `engine run --dev` and SIGHUP, through the real CLI in a child process on a small project: a
// route file that appears is served without a restart, an edit is served, a broken edit keeps
// the last good route and prints its diagnostic (a route saved on another's path names both
// files); without --dev, SIGHUP reloads.

import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startVendor, reloadProject, httpRoute, type Vendor } from './project.ts';
import { until } from '../hubvendor-payment-inbound/helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/engine.js', import.meta.url));

interface Cli {
  child: ChildProcess;
  url: string;
  out: string[];
  err: () => string;
}

function runCli(root: string, args: string[]): Promise<Cli> {
  const child = spawn(process.execPath, [BIN, 'run', 'routes', '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  const out: string[] = [];
  let err = '';
  let buf = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      buf += c;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        out.push(l);
        const m = /"url":"([^"]+)".*"msg":"engine started"/.exec(l);
        if (m) resolve({ child, url: m[1], out, err: () => err });
      }
    });
    child.once('exit', (code) => reject(new Error(`engine exited (${code}): ${err}`)));
  });
}

const post = async (url: string) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return { status: res.status, body: await res.text() };
};

let vendor: Vendor | undefined;
let cli: Cli | undefined;
afterEach(async () => {
  if (cli && cli.child.exitCode === null && cli.child.signalCode === null) {
    const exited = new Promise((r) => cli!.child.once('exit', r));
    cli.child.kill('SIGTERM');
    await exited;
  }
  await vendor?.close();
});

describe('engine run --dev', () => {
  it('serves a new route file, then an edit, and keeps the last good route on a broken edit', async () => {
    vendor = await startVendor();
    const p = reloadProject(vendor.url);
    cli = await runCli(p.root, ['--dev']);
    const c = cli;
    expect((await post(c.url + '/fresh')).status).toBe(404);

    p.write('routes/fresh.yaml', httpRoute('fresh', '{"fresh": 1}'));
    await until(async () => (await post(c.url + '/fresh')).status === 200, 15_000, 'the new route served');
    expect(c.out.some((l) => /routes reloaded in \d+ ms: 1 added \(fresh\)/.test(l))).toBe(true);

    p.write('routes/fresh.yaml', httpRoute('fresh', '{"fresh": 2}'));
    await until(async () => (await post(c.url + '/fresh')).body === '{"fresh":2}', 15_000, 'the edit served');

    p.write('routes/fresh.yaml', httpRoute('fresh', '{"fresh": 3}').replace('path: /fresh', 'pathh: /fresh'));
    await until(() => /still serving the previous routes/.test(c.err()), 15_000, 'the refused reload printed');
    expect(c.err()).toMatch(/routes\/fresh\.yaml:5:\d+ .*pathh/);
    expect((await post(c.url + '/fresh')).body).toBe('{"fresh":2}');
  });

  it('refuses a saved route on the path of another, naming both files', async () => {
    vendor = await startVendor();
    const p = reloadProject(vendor.url);
    cli = await runCli(p.root, ['--dev']);
    const c = cli;
    p.write('routes/twin.yaml', httpRoute('twin', '{"twin": 1}').replace('path: /twin', 'path: /hello'));
    await until(() => /still serving the previous routes/.test(c.err()), 15_000, 'the refused reload printed');
    expect(c.err()).toContain(
      "routes/twin.yaml:5:11 POST /hello is already served by route 'hello' (routes/hello.yaml:5:11); two routes cannot share a method and path",
    );
    expect(c.err()).not.toMatch(/reload failed/);
    expect((await post(c.url + '/hello')).status).toBe(200);
  });
});

describe('SIGHUP', () => {
  it('reloads the routes of an engine running without --dev', async () => {
    vendor = await startVendor();
    const p = reloadProject(vendor.url);
    cli = await runCli(p.root, []);
    const c = cli;
    p.write('routes/hello.yaml', httpRoute('hello', '{"hup": true}'));
    c.child.kill('SIGHUP');
    await until(
      () => c.out.some((l) => /routes reloaded in \d+ ms: 1 changed \(hello\)/.test(l)),
      15_000,
      'the reload log line',
    );
    expect((await post(c.url + '/hello')).body).toBe('{"hup":true}');
    expect(c.child.exitCode).toBe(null);
  });
});
