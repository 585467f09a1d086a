// Runs an engine in a child process, so a test can see from outside whether its event loop is
// frozen (in-process, a frozen loop would freeze the test as well). The child logs JSON lines
// (level `warn` and up) on stdout; `logs` holds them.

import { afterAll, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface EngineProcess {
  url: string;
  logs: string[];
  close(): Promise<void>;
}

const SERVE = fileURLToPath(new URL('./serve-engine.ts', import.meta.url));

export function startEngineProcess(root: string, env: string): Promise<EngineProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVE, root, env], { stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const lines = out.split('\n');
    out = lines.pop()!;
    logs.push(...lines);
  });
  const close = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      const m = /READY (\S+)/.exec(err);
      if (m) resolve({ url: m[1], logs, close });
    });
    child.once('exit', (code) => reject(new Error(`engine process exited (${code}): ${err}`)));
  });
}

/** A route whose one step is a transform with `expression` (served at POST /<id>). */
export const transformRoute = (id: string, expression: string) => `id: ${id}
from:
  http:
    method: POST
    path: /${id}
steps:
  - transform:
      expression: ${JSON.stringify(expression)}
`;

/** POSTs JSON to the engine; a frozen engine never answers, so the call gives up after 10 s. */
async function postJson(
  engine: EngineProcess,
  path: string,
  body: unknown = {},
): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(engine.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as any, ms: Date.now() - started };
}

/** The first log line holding `needle`: the answer can arrive before the child's line was read. */
async function waitForLog(engine: EngineProcess, needle: string): Promise<string | undefined> {
  for (let i = 0; i < 100; i++) {
    const line = engine.logs.find((l) => l.includes(needle));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/** An environment whose expression limits are tight enough for a runaway to hit them in a test. */
export const TIGHT_EXPRESSIONS_ENV =
  'keys: {}\nproperties: {}\nengine:\n  expressions:\n    timeout: 300\n    maxDepth: 200\n';

/**
 * An engine process for the tests of one file, started before them and stopped after: `post` and
 * `logLine` talk to it, `logs()` is what it logged.
 */
export function engineProcessFor(root: string, env = 'test') {
  let engine: EngineProcess;
  beforeAll(async () => {
    engine = await startEngineProcess(root, env);
  });
  afterAll(async () => {
    await engine?.close();
  });
  return {
    post: (path: string, body: unknown = {}) => postJson(engine, path, body),
    logLine: (needle: string) => waitForLog(engine, needle),
    logs: () => engine.logs,
    url: () => engine.url,
  };
}
