// The embedded durable store (PGlite in a data folder): the same migrations and SQL as PostgreSQL,
// its records kept when the process closes and reopens the folder. Opened the way an engine opens
// it (durable-for.ts: once per engine, one log line, closed with the engine). One process per
// folder: a second open while the first holds it is refused, a lock left by a dead process is taken over.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../../engine/store/durable-pglite.ts';
import { durableStoreFor } from '../../engine/store/durable-for.ts';
import type { EngineServices } from '../../engine/pipeline/compile-context.ts';
import { sample } from './helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'durable-'));
const dir = join(root, 'data', 'store');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The services durableStoreFor reads: the project root, engine.store, a logger, the close hooks. */
function engineServices() {
  const logs: { obj: Record<string, unknown>; msg: string }[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  const services = {
    root,
    lintOnly: false,
    settings: { store: { inFlightTimeout: 1, embedded: { dir: 'data/store' } } },
    logger: { info: (obj: Record<string, unknown>, msg: string) => logs.push({ obj, msg }) },
    onClose: (fn: () => Promise<void> | void) => closers.push(fn),
  } as unknown as EngineServices;
  return { services, logs, close: async () => Promise.all(closers.map((c) => c())) };
}

describe('durable store: embedded (PGlite)', () => {
  // PGlite creates its cluster on the first open of a folder (seconds, more under load)
  it('records failed exchanges, and a close and reopen of the folder keeps them', async () => {
    const engine = engineServices();
    const opening = durableStoreFor(engine.services);
    expect(durableStoreFor(engine.services)).toBe(opening);
    let store = await opening;
    expect(store.kind).toBe('embedded');
    expect(engine.logs.map((l) => l.msg)).toEqual([`durable store: embedded (PGlite) in ${dir}`]);
    const one = await store.recordFailed(sample());
    await store.recordFailed(sample({ code: 'UPSTREAM_REJECTED', lastAt: new Date('2026-11-27T12:00:00Z') }));
    expect(await store.getFailed(one.id)).toEqual({ ...one, status: 'open' });
    expect((await store.listFailed({ code: 'VALIDATION_FAILED' })).map((r) => r.id)).toEqual([one.id]);
    expect((await store.listFailed()).map((r) => r.code)).toEqual(['UPSTREAM_REJECTED', 'VALIDATION_FAILED']);
    const second = await openEmbeddedStore({ dir }).catch((e) => e);
    expect(second.cause?.message).toMatch(new RegExp(`in use by process ${process.pid}: one process per folder`));
    await engine.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    await expect(store.countOpen()).rejects.toThrow();

    // a lock a killed engine left behind (its pid is gone) does not keep the folder closed
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(`${dir}.lock`, String(dead));
    store = await openEmbeddedStore({ dir });
    try {
      expect(await store.getFailed(one.id)).toEqual(one);
      expect(await store.countOpen()).toBe(2);
    } finally {
      await store.close();
    }
  }, 180_000);
});
