// Browser tests of the console: Debian's Chromium driven by playwright-core, against a real
// `engine run --env sandbox` child process on port 0, set up once per file by consoleSession().
// Without /usr/bin/chromium the tests skip loudly on a laptop and fail under CI=true (.ci/run
// installs it).

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connect, PG_URL } from '../store/helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Screenshots of each page (git-ignored: the test artifacts CI keeps). */
const ARTIFACTS = join(process.cwd(), 'artifacts', 'console');

export function requireChromium(): void {
  if (hasChromium) return;
  const msg = `console browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${msg}; CI must run them`);
  console.warn(`\n*** SKIPPED: ${msg} ***\n`);
}

async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

interface EngineProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `engine run routes/ --env sandbox --port 0`; resolves with its URL once it listens. */
function runSandboxEngine(env: NodeJS.ProcessEnv = {}): Promise<EngineProcess> {
  const child = spawn(process.execPath, ['bin/engine.js', 'run', 'routes/', '--env', 'sandbox', '--port', '0'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the engine did not start in 60 s: ${err}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the engine exited (${code}): ${err}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.includes('"engine started"')) return;
      clearTimeout(timer);
      resolve({ url: JSON.parse(line).url, child, stop });
    });
  });
}

/** A database of its own on the machine's PostgreSQL (the engine's schema is `engine` by default). */
async function createDatabase(tag: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_console_${tag}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const c = await connect();
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const d = await connect();
      await d.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await d.end();
    },
  };
}

export interface ConsoleSession {
  engine: EngineProcess;
  browser: Browser;
  /** one page, 1400 x 900; an uncaught error on it fails the test */
  page: Page;
  /** the engine's durable store database, when asked for (`database`) */
  databaseUrl?: string;
  /** a full-page screenshot into ARTIFACTS */
  shot(name: string): Promise<void>;
}

/**
 * The set-up every console browser test shares, as vitest hooks of the calling file: a sandbox
 * engine (with a PostgreSQL database of its own as its durable store when `database` names one),
 * Chromium and a page; all stopped and dropped after the file. The fields are set in beforeAll.
 */
export function consoleSession(opts: { database?: string } = {}): ConsoleSession {
  const s = {} as ConsoleSession;
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  s.shot = async (name) => {
    await s.page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  };
  beforeAll(async () => {
    if (opts.database) {
      db = await createDatabase(opts.database);
      s.databaseUrl = db.url;
    }
    [s.engine, s.browser] = await Promise.all([
      runSandboxEngine(db ? { ENGINE_STORE_POSTGRES_URL: db.url } : {}),
      launchBrowser(),
    ]);
    s.page = await s.browser.newPage({ viewport: { width: 1400, height: 900 } });
    s.page.on('pageerror', (e) => {
      throw e;
    });
  }, 90_000);
  afterAll(async () => {
    await s.browser?.close();
    await s.engine?.stop();
    await db?.drop();
  });
  return s;
}
