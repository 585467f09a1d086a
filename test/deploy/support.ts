// Helpers of the build and deploy tests: child processes with a deadline, a copy of the project
// to build in (so a build never writes dist/ into the shared working tree), the registry and tool
// checks behind the "skip loudly outside CI" rule, and a started engine process.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const IN_CI = process.env.CI === 'true';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (or the deadline) without blocking the test worker. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${cmd} ${args.join(' ')}: no end within ${opts.timeoutMs} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Expects exit 0; the error shows what the command printed. */
export async function runOk(cmd: string, args: string[], opts: Parameters<typeof run>[2]): Promise<Ran> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0)
    throw new Error(`${cmd} ${args.join(' ')} (in ${opts.cwd}) exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * `npm run build` in `dir` without its first step, the type-check (`tsc -p tsconfig.build.json`),
 * which `npm run lint` makes of the same sources: the bundle, the console and the SBOM, as the
 * script's other steps say (read from package.json, so they stay the script's). The type-check
 * costs some 25 s of CPU per build; the package test (pack.slow.test.ts) runs the whole script.
 */
export async function buildWithoutTypecheck(dir: string): Promise<void> {
  const script: string = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.build;
  const steps = script.split(' && ');
  if (!steps[0]?.startsWith('tsc '))
    throw new Error(`the build script no longer starts with its type-check: ${script}`);
  for (const step of steps.slice(1)) {
    const [cmd, ...args] = step.split(' ');
    await runOk(cmd!, args, { cwd: dir, timeoutMs: 180_000 });
  }
}

/** The files a build needs, copied into a fresh directory; node_modules is linked, not copied. */
export function projectCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-build-'));
  for (const f of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'README.md',
    'Dockerfile',
    '.dockerignore',
  ])
    cpSync(join(ROOT, f), join(dir, f));
  for (const d of [
    'bin',
    'build',
    'engine',
    'packages',
    'sandbox',
    'console-ui',
    'routes',
    'values',
    'transforms',
    'schemas',
  ])
    cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Whether npm reaches its registry; outside CI a test that installs from it skips, loudly, when not. */
export function registryReachable(): boolean {
  const r = spawnSync('npm', ['ping'], { timeout: 20_000, stdio: 'ignore' });
  return r.status === 0;
}

export function commandExists(cmd: string): boolean {
  return spawnSync(cmd, ['version', '--client'], { stdio: 'ignore' }).status === 0;
}

/** Says why a test skips, in a way nobody misses; under CI=true nothing may skip. */
export function skipLoudly(what: string, why: string): boolean {
  if (IN_CI) return false;
  process.stderr.write(`\n!!! SKIPPED (${what}): ${why}. Under CI=true this test runs and fails instead.\n\n`);
  return true;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  child?: ChildProcess,
  output?: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      // what the process said last is why it stopped (a port taken, a diagnostic)
      const said = output ? `; its output ends:\n${output().slice(-2000)}` : '';
      throw new Error(`${what}: the process exited ${child.exitCode} first${said}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

export interface EngineProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** Spawns a long-running engine; `stop` sends SIGTERM and resolves with the exit code. */
export function spawnEngine(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): EngineProcess {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b) => {
    out += b;
  });
  child.stderr!.on('data', (b) => {
    out += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** One FX request through a running engine: the sandbox's payment hub answers with rates. */
export async function exchangeRate(port: number): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}/foreign-exchange/exchange-rates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', transactionAmount: '1000.00', rateType: 'SPOT' }),
  });
  return { status: res.status, body: await res.json() };
}

export const ready = (port: number) => async () =>
  (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200;
