// The `engine` command run as a user runs it (node bin/engine.js ...), in a child process: what it
// printed and its exit code, or, for `engine run`, the process once it says it started.

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve('bin/engine.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** variables added to (or, with undefined, removed from) the test's process environment */
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
}

function environment(add: CliOptions['env'] = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [k, v] of Object.entries(add)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs `engine ARGS` to its end; a run that has not ended by the deadline is killed and fails the test. */
export function engineCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: environment(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      fail(new Error(`engine ${args.join(' ')}: no end within ${opts.timeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    p.on('error', fail);
    p.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    p.stdin.end(opts.stdin ?? '');
  });
}

/**
 * Starts `engine run ARGS` and resolves once its log says `engine started`, or with its output and
 * exit code when it ends first; the started engine is stopped (SIGTERM) before resolving.
 */
export function engineStarts(args: string[], opts: CliOptions = {}): Promise<CliResult & { started: boolean }> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [BIN, 'run', ...args], {
      cwd: opts.cwd,
      env: environment({ LOG_LEVEL: 'info', ...opts.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let started = false;
    p.stdout.on('data', (c) => {
      stdout += c;
      if (!started && stdout.includes('"msg":"engine started"')) {
        started = true;
        p.kill('SIGTERM');
      }
    });
    p.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      fail(
        new Error(
          `engine run ${args.join(' ')}: neither started nor ended within ${opts.timeoutMs ?? 60_000} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, opts.timeoutMs ?? 60_000);
    p.on('error', fail);
    p.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, started });
    });
  });
}
