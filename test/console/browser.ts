// Browser tests of the console: Debian's Chromium driven by playwright-core, against a real
// `engine run --env sandbox` child process on port 0. Without /usr/bin/chromium the tests skip
// loudly on a laptop and fail under CI=true (.ci/run installs it).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Screenshots of each page (git-ignored: the test artifacts CI keeps). */
export const ARTIFACTS = join(process.cwd(), 'artifacts', 'console');

export function requireChromium(): void {
  if (hasChromium) return;
  const msg = `console browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${msg}; CI must run them`);
  console.warn(`\n*** SKIPPED: ${msg} ***\n`);
}

export async function launchBrowser(): Promise<Browser> {
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

export interface EngineProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `engine run routes/ --env sandbox --port 0`; resolves with its URL once it listens. */
export function runSandboxEngine(env: NodeJS.ProcessEnv = {}): Promise<EngineProcess> {
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
