// The engine's listener named beside the embedded store's lock (`<dir>.lock.json`), for `engine
// failed` to work through it: written once the process both holds the lock and listens, in either
// order; gone with the lock or the listener; the lock file itself stays the bare pid; a file left by
// another pid, or a lock whose process is gone, names no engine.

import { afterEach, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { announceListener, embeddedOwner, lockEmbeddedDir } from '../../engine/store/embedded-lock.ts';

const roots: string[] = [];
const folder = () => {
  const root = mkdtempSync(join(tmpdir(), 'embedded-lock-'));
  roots.push(root);
  return join(root, 'store');
};
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

it('names the listener once the lock is held and the engine listens, and forgets it with either', () => {
  const dir = folder();
  const withdraw = announceListener(dir, 'http://127.0.0.1:8080');
  expect(existsSync(`${dir}.lock.json`)).toBe(false); // listening, but the store not opened yet
  expect(embeddedOwner(dir)).toBeUndefined();
  const release = lockEmbeddedDir(dir);
  expect(readFileSync(`${dir}.lock`, 'utf8')).toBe(String(process.pid));
  expect(embeddedOwner(dir)).toEqual({ pid: process.pid, url: 'http://127.0.0.1:8080' });
  withdraw();
  expect(embeddedOwner(dir)).toEqual({ pid: process.pid });
  release();
  expect(existsSync(`${dir}.lock`)).toBe(false);

  // the other order: the lock first (the outbox opens the store at start), then the listener
  const release2 = lockEmbeddedDir(dir);
  expect(embeddedOwner(dir)).toEqual({ pid: process.pid });
  announceListener(dir, 'http://127.0.0.1:9090');
  expect(embeddedOwner(dir)?.url).toBe('http://127.0.0.1:9090');
  release2();
  expect(existsSync(`${dir}.lock.json`)).toBe(false);
  expect(embeddedOwner(dir)).toBeUndefined();
});

it('names no engine for a file another pid left, nor for a lock whose process is gone', () => {
  const dir = folder();
  writeFileSync(`${dir}.lock`, String(process.pid));
  writeFileSync(`${dir}.lock.json`, JSON.stringify({ pid: process.pid + 1, url: 'http://127.0.0.1:8080' }));
  expect(embeddedOwner(dir)).toEqual({ pid: process.pid });
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(`${dir}.lock`, dead);
  writeFileSync(`${dir}.lock.json`, JSON.stringify({ pid: Number(dead), url: 'http://127.0.0.1:8080' }));
  expect(embeddedOwner(dir)).toBeUndefined();
  // taken over: the stale listener file goes with the stale lock
  const release = lockEmbeddedDir(dir);
  expect(embeddedOwner(dir)).toEqual({ pid: process.pid });
  release();
});
