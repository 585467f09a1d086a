// Helpers of the replica tests: a copy of values/ whose sandbox environment sets `engine.store`
// (as an operator's environment file would), unique Redis prefixes, key cleanup, signed webhooks,
// engine processes as replicas and the one event hub sink they share.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parse, stringify } from 'yaml';
import { Redis } from 'ioredis';
import { sign } from '../../engine/outbound/webhook-signature.ts';
import { SANDBOX_WEBHOOK_SECRET } from '../../sandbox/achvendor/model.ts';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniquePrefix(tag: string): string {
  return `test:${tag}:${randomUUID().slice(0, 8)}:`;
}

/** values/ copied to a temporary directory, its sandbox environment given `engine.store`. */
export function valuesWithStore(store: Record<string, unknown>): { dir: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'replicas-'));
  const dir = join(root, 'values');
  cpSync('values', dir, { recursive: true });
  const file = join(dir, 'environments', 'sandbox.yaml');
  const env = parse(readFileSync(file, 'utf8'));
  env.engine = { ...env.engine, store };
  writeFileSync(file, stringify(env));
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Deletes every key under `prefix` (SCAN, never KEYS). */
export async function deleteKeys(prefix: string): Promise<number> {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let n = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) n += await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return n;
}

/** A Standard Webhooks signed delivery of `body` with the sandbox ACH secret. */
export function signedWebhook(body: unknown, id: string): { raw: string; headers: Record<string, string> } {
  const raw = JSON.stringify(body);
  const ts = Math.floor(Date.now() / 1000);
  return {
    raw,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(SANDBOX_WEBHOOK_SECRET, id, ts, raw),
    },
  };
}

export interface SharedSink {
  /** base URL; a replica posts to `${url}/<replica>/events` so the sink knows who published */
  url: string;
  received: { replica: string; event: any }[];
  close(): Promise<void>;
}

/** ONE event hub sink both replicas post to (202 after `delayMs`, which keeps messages in flight). */
export async function startSharedSink(delayMs = 0): Promise<SharedSink> {
  const received: SharedSink['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () =>
      setTimeout(() => {
        const replica = (req.url ?? '').split('/')[1] ?? '';
        received.push({ replica, event: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":1}');
      }, delayMs),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Replica {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** `node bin/engine.js run ...` as a replica would run; resolves once it logged `engine started`. */
export function startReplica(name: string, args: string[], env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, ['bin/engine.js', 'run', ...args, '--port', '0'], {
    cwd: process.cwd(),
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void kill('SIGKILL');
      reject(new Error(`replica ${name} did not start in 20 s:\n${out}`));
    }, 20_000);
    const onData = (d: Buffer) => {
      out += d;
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"engine started"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ name, url: m[1]!, child, output: () => out, kill });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica ${name} exited (${code}):\n${out}`));
    });
  });
}
