// What the CLI prints when a command cannot do its work. A failure the user caused (a project
// problem, a port in use, a wrong environment variable or flag) is said in words, one line each,
// with what to change, and exit 1: never a stack trace. Anything else is a defect of the engine: its
// message and stack, with the paths made relative to the package, so that a stack of an installed
// package names no directory of the machine it was built or installed on.

import { dirname, join, sep } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InvalidArgumentError } from 'commander';
import { DiagnosticError, SettingError, formatDiagnostic } from '../core/diagnostics.ts';

/** What `engine run` was told to listen on, for the words of a listen failure. */
export interface ListenTarget {
  port?: number;
  host?: string;
  env?: string;
}

const LISTEN_CODES: Record<string, string> = {
  EADDRINUSE: 'is in use by another process',
  EACCES: 'may not be used by this user (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'is not an address of this machine',
};

/** The one line of a listener that could not open, naming what changes it; undefined for any other error. */
export function listenFailure(e: unknown, target: ListenTarget): string | undefined {
  const { code, address, port } = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (!code || !(code in LISTEN_CODES)) return undefined;
  const envFile = target.env ? `values/environments/${target.env}.yaml` : 'the environment file (--env NAME)';
  if (code === 'EADDRNOTAVAIL') {
    const host = address ?? target.host ?? '';
    return `cannot listen on address ${host}: it ${LISTEN_CODES[code]} (${code}); choose another with --host ADDR or engine.server.host in ${envFile}`;
  }
  const p = port ?? target.port;
  return (
    `cannot listen on port ${p ?? '?'}${address ? ` of ${address}` : ''}: it ${LISTEN_CODES[code]} (${code}); ` +
    `choose another with --port N (0: any free port) or engine.server.port in ${envFile}`
  );
}

/** `--port`: a whole number from 0 to 65535 (commander says which option and value were refused). */
export function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n > 65535)
    throw new InvalidArgumentError('A port is a whole number from 0 to 65535 (0: any free port).');
  return n;
}

/** `--set key=value`, repeatable: the pairs so far with this one. */
export function collectSet(v: string, prev: Record<string, string>): Record<string, string> {
  const i = v.indexOf('=');
  if (i <= 0)
    throw new InvalidArgumentError(
      `--set expects key=value (a property or an environmental key), e.g. --set vendor-base-url=https://vendor.example.test`,
    );
  return { ...prev, [v.slice(0, i)]: v.slice(i + 1) };
}

/** The directory of the engine's package.json (the sources, or the installed package of a build). */
function packageRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A stack with the package's own directory left out of its paths (file paths and file: URLs). */
export function relativeStack(stack: string, root = packageRoot()): string {
  if (!root) return stack;
  const url = pathToFileURL(root).href;
  return stack
    .split(url + '/')
    .join('')
    .split(root + sep)
    .join('');
}

/** Writes why a command failed and sets exit code 1. */
export function reportFailure(e: unknown, write: (text: string) => void = (t) => process.stderr.write(t)): void {
  process.exitCode = 1;
  if (e instanceof DiagnosticError) {
    for (const d of e.diagnostics) write(formatDiagnostic(d) + '\n');
    write(`engine: ${e.diagnostics.length} problem(s)\n`);
    return;
  }
  if (e instanceof SettingError) {
    write(`engine: ${e.message}\n`);
    return;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  write(
    `engine: internal error (a defect of the engine, please report it): ${relativeStack(err.stack ?? err.message)}\n`,
  );
}
