// The shared store's records (real Redis on 127.0.0.1:6379) between two replicas, and the gateway's
// pending confirmations of 2025-11-25 clients on them: asked on one replica, decided on another,
// and used by exactly one of two retries racing on both.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { RedisStore } from '../../engine/store/store-redis.ts';
import { MemoryStore } from '../../engine/store/store-memory.ts';
import { UrlConfirmations } from '../../engine/gateway/url-confirmation.ts';
import type { Tool } from '../../engine/gateway/tools.ts';
import { REDIS_URL, deleteKeys, uniquePrefix } from './helpers.ts';

const silent = pino({ level: 'silent' });
const tool = { name: 'initiatePaymentOrder', definition: { title: 'Initiate a payment' } } as unknown as Tool;
const who = { user: 'alice', subscription: 'demo-agent' };
const args = { transferTransactionInformation: { instructedAmount: { amount: '10.00', currencyCode: 'EUR' } } };

describe('records shared by two replicas (Redis)', () => {
  const prefix = uniquePrefix('records');
  let a: RedisStore;
  let b: RedisStore;
  beforeAll(() => {
    a = new RedisStore({ url: REDIS_URL, prefix, commandTimeout: 2000 }, 300, silent);
    b = new RedisStore({ url: REDIS_URL, prefix, commandTimeout: 2000 }, 300, silent);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await deleteKeys(prefix);
  });

  it('set on one, read on the other; taken once; gone after the ttl', async () => {
    const ra = a.records({ namespace: 'n', ttlMs: 60_000, maxKeys: 10 });
    const rb = b.records({ namespace: 'n', ttlMs: 60_000, maxKeys: 10 });
    await ra.set('k', 'v1');
    expect(await rb.get('k')).toBe('v1');
    const [x, y] = await Promise.all([ra.take('k'), rb.take('k')]);
    expect([x, y].sort()).toEqual(['v1', undefined].sort());
    await ra.set('short', 'v', 50);
    await new Promise((r) => setTimeout(r, 120));
    expect(await rb.get('short')).toBeUndefined();
    // another namespace never meets these keys
    await ra.set('k', 'v2');
    expect(await b.records({ namespace: 'other', ttlMs: 1000, maxKeys: 1 }).get('k')).toBeUndefined();
  });

  it('a confirmation asked on one replica, confirmed on the other, runs one of two racing retries', async () => {
    const opts = { namespace: 'url-confirm', ttlMs: 60_000, maxKeys: 10 };
    const ua = new UrlConfirmations(a.records(opts), 30_000);
    const ub = new UrlConfirmations(b.records(opts), 30_000);
    const ask = await ua.onCall(tool, who, args);
    expect(ask).toMatchObject({ kind: 'ask', fresh: true });
    const id = (ask as { id: string }).id;
    expect(await ub.onCall(tool, who, args)).toMatchObject({ kind: 'ask', id, fresh: false });
    expect(await ub.view(id, 'bob')).toBeUndefined();
    expect((await ub.decide(id, 'alice', true)).kind).toBe('done');
    const runs = await Promise.all([ua.onCall(tool, who, args), ub.onCall(tool, who, args)]);
    expect(runs.filter((r) => r.kind === 'run')).toHaveLength(1);
    // the loser was asked anew: a new confirmation
    expect(runs.find((r) => r.kind !== 'run')).toMatchObject({ kind: 'ask', fresh: true });
  });
});

describe('records of one process (memory)', () => {
  it('bounded: the oldest go first; expired ones are gone', async () => {
    const r = new MemoryStore().records({ namespace: 'n', ttlMs: 40, maxKeys: 2 });
    r.set('a', '1');
    r.set('b', '2');
    r.set('c', '3');
    expect(r.get('a')).toBeUndefined();
    expect(r.get('c')).toBe('3');
    expect(r.take('c')).toBe('3');
    expect(r.take('c')).toBeUndefined();
    await new Promise((res) => setTimeout(res, 60));
    expect(r.get('b')).toBeUndefined();
  });
});
