// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in test/conformance/,
// a package of its own: it needs Node.js 22 or later, the root dependencies work on 20.19 too) run
// as its program against a URL, one spec revision at a time, and its results read back: one
// checks.json per scenario. The suite cannot send a header of our choosing, and every request to
// /mcp needs the subscription key: keyProxy puts it on each request on the way.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUITE_PACKAGE = 'test/conformance';
const SUITE_DIR = fileURLToPath(new URL(`../../${SUITE_PACKAGE}/`, import.meta.url));
const SUITE = join(SUITE_DIR, 'node_modules/@modelcontextprotocol/conformance');
/** the Node.js line the suite runs on (it imports fs.globSync, new in 22) */
export const SUITE_NODE_MAJOR = 22;

export type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
export interface Check {
  id: string;
  status: Status;
  errorMessage?: string;
}
export interface SuiteRun {
  /** how many scenarios the suite said it would run */
  announced: number;
  /** scenario name -> its checks, as the suite wrote them */
  scenarios: Map<string, Check[]>;
  /** what the suite printed (its summary ends it) */
  output: string;
}

/** The suite's program, when test/conformance/ is installed (`npm ci --prefix test/conformance`). */
export function suiteProgram(): string | undefined {
  const manifest = join(SUITE, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(SUITE, bin.conformance!);
}

/** The suite's version as installed (the lockfile pins it). */
export function suiteVersion(): string {
  return (JSON.parse(readFileSync(join(SUITE, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * `conformance server --url URL --requirements REVISION`: exactly the scenarios the revision
 * requires, at that revision's wire (2025-11-25: initialize first; 2026-07-28: stateless, `_meta`
 * per request), and those it runs without scoring (extensions, pending ones). Its exit code says
 * whether every required scenario passed; the caller judges the checks instead.
 */
export async function runSuite(program: string, url: string, revision: string, out: string): Promise<SuiteRun> {
  const args = [program, 'server', '--url', url, '--requirements', revision, '--output-dir', out];
  const output = await new Promise<string>((done, fail) => {
    // its own folder as the working directory: the suite writes nothing into the project
    const child = spawn(process.execPath, args, { cwd: out, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (b) => (text += b));
    child.stderr.on('data', (b) => (text += b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the conformance suite (${revision}) did not end within 60 s:\n${text}`));
    }, 60_000);
    child.on('error', fail);
    child.on('close', () => {
      clearTimeout(timer);
      done(text);
    });
  });
  const announced = Number(/Running requirements \S+ \((\d+) scenarios\)/.exec(output)?.[1] ?? NaN);
  const scenarios = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    // server-<scenario>-<ISO time with - for :>
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(dir);
    if (m) scenarios.set(m[1]!, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  return { announced, scenarios, output };
}

export interface KeyProxy {
  /** http://127.0.0.1:<port>, the origin the suite's requests come from */
  origin: string;
  /** where requests go from now on (the engine's URL) */
  forwardTo(url: string): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy on 127.0.0.1 that adds `headers` to every request and changes nothing else (Host
 * and Origin pass as sent: the suite's DNS rebinding scenario depends on them).
 */
export async function keyProxy(headers: Record<string, string>): Promise<KeyProxy> {
  let target: URL | undefined;
  const server = createServer((req, res) => {
    if (!target) {
      res.writeHead(503).end();
      return;
    }
    const forwarded: IncomingHttpHeaders = { ...req.headers, ...headers };
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: forwarded },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    forwardTo: (url) => (target = new URL(url)),
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}
