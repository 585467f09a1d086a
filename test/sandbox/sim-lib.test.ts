// The simulator library over real sockets: fault rules applied after the handler ran (`after`),
// also over the control API, and the shared webhook sender (Standard Webhooks signatures checked
// by the engine's verifier, redelivery with backoff, ordering per key, close()).

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimServer, type SimRequest, type SimServer } from '../../sandbox/lib/sim-server.ts';
import { createWebhookSender, isDelivered, newWebhookId, redeliveryDelay } from '../../sandbox/lib/webhook-sender.ts';
import { verifySignature } from '../../engine/outbound/webhook-signature.ts';

const SECRET = 'whsec_' + Buffer.from('sim-lib-test-secret').toString('base64');

describe('fault rules with after: true', () => {
  let sim: SimServer;
  let ran = 0;
  beforeAll(async () => {
    sim = createSimServer({ name: 'after' });
    sim.route('POST', '/orders', () => ({ status: 201, body: { n: ++ran } }));
    await sim.start();
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.clearFaults();
    ran = 0;
  });

  const post = async (path = '/orders') => {
    const r = await fetch(sim.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    return { status: r.status, body: (await r.json()) as any, headers: r.headers };
  };

  it('runs the handler, then answers the fault (504 by default), for `times` requests', async () => {
    sim.addFault({ method: 'POST', path: '^/orders$', after: true, times: 2 });
    const a = await post();
    expect(a).toMatchObject({ status: 504, body: { error: 'fault injected after the handler ran', server: 'after' } });
    expect((await post()).status).toBe(504);
    expect(await post()).toMatchObject({ status: 201, body: { n: 3 } });
    expect(ran).toBe(3);
    expect(sim.faults()).toEqual([]);
  });

  it('uses the rule status, body and headers, after delayMs', async () => {
    sim.addFault({
      path: '^/orders$',
      after: true,
      status: 503,
      body: { code: 'DOWN' },
      headers: { 'retry-after': '1' },
      delayMs: 150,
      times: 1,
    });
    const t0 = Date.now();
    const a = await post();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(a.status).toBe(503);
    expect(a.body).toEqual({ code: 'DOWN' });
    expect(a.headers.get('retry-after')).toBe('1');
    expect(ran).toBe(1);
  });

  it('with reset: the handler ran, the client sees the connection dropped', async () => {
    sim.addFault({ path: '^/orders$', after: true, reset: true, times: 1 });
    await expect(post()).rejects.toThrow();
    expect(ran).toBe(1);
  });

  it('without after the handler does not run', async () => {
    sim.addFault({ path: '^/orders$', status: 503, times: 1 });
    expect((await post()).status).toBe(503);
    expect(ran).toBe(0);
  });

  it('is available over the control API, which names a bad field', async () => {
    const ctl = (body: unknown) =>
      fetch(`${sim.url}/__sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await ctl({ after: 'yes' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'after must be a boolean' });
    const ok = await ctl({ method: 'POST', path: '^/orders$', after: true, status: 502, times: 1 });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as any).faults[0]).toMatchObject({ after: true, status: 502, hits: 0 });
    expect((await post()).status).toBe(502);
    expect(ran).toBe(1);
  });
});

describe('webhook sender', () => {
  let receiver: SimServer;
  const got: { id: string; ts: string; sig: string; raw: Buffer; at: number }[] = [];
  let answers: number[] = [];
  let slowFirstMs = 0;
  beforeAll(async () => {
    receiver = createSimServer({ name: 'receiver' });
    receiver.route('POST', '/hook', async (req: SimRequest) => {
      const h = req.headers as Record<string, string>;
      got.push({
        id: h['webhook-id']!,
        ts: h['webhook-timestamp']!,
        sig: h['webhook-signature']!,
        raw: req.rawBody,
        at: Date.now(),
      });
      if (slowFirstMs && got.length === 1) await new Promise((r) => setTimeout(r, slowFirstMs));
      const status = answers.shift() ?? 200;
      return { status, body: { status: status < 300 ? 'ok' : 'down' } };
    });
    await receiver.start();
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    got.length = 0;
    answers = [];
    slowFirstMs = 0;
  });

  it('signs with Standard Webhooks headers the engine verifies', async () => {
    const sender = createWebhookSender({ name: 't', secret: SECRET });
    const msg = { id: newWebhookId(), body: JSON.stringify({ hello: 'wörld' }) };
    const attempts = await sender.deliver(`${receiver.url}/hook`, msg);
    expect(attempts).toMatchObject([{ attempt: 1, status: 200, answer: { status: 'ok' } }]);
    expect(isDelivered(attempts)).toBe(true);
    expect(msg.id).toMatch(/^msg_[0-9a-f]{32}$/);
    const [w] = got;
    expect(w!.raw.toString('utf8')).toBe(msg.body);
    expect(verifySignature([SECRET], { id: w!.id, timestamp: w!.ts, signature: w!.sig, body: w!.raw }, 60)).toEqual({
      ok: true,
    });
    expect(
      verifySignature(
        ['whsec_' + Buffer.from('other').toString('base64')],
        { id: w!.id, timestamp: w!.ts, signature: w!.sig, body: w!.raw },
        60,
      ).ok,
    ).toBe(false);
    sender.close();
  });

  it('redelivers on non-2xx with the same id and body, with growing pauses, and stops after `attempts`', async () => {
    const sender = createWebhookSender({ name: 't', secret: SECRET, attempts: 3, delayMs: 50, multiplier: 2 });
    answers = [503, 500, 503, 503];
    const msg = { id: newWebhookId(), body: '{"a":1}' };
    const attempts = await sender.deliver(`${receiver.url}/hook`, msg);
    expect(attempts.map((a) => a.status)).toEqual([503, 500, 503]);
    expect(isDelivered(attempts)).toBe(false);
    expect(new Set(got.map((g) => g.id))).toEqual(new Set([msg.id]));
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(45);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(95);
    for (const g of got)
      expect(verifySignature([SECRET], { id: g.id, timestamp: g.ts, signature: g.sig, body: g.raw }, 60)).toEqual({
        ok: true,
      });
    expect([2, 3, 4, 30].map((n) => redeliveryDelay({ delayMs: 200, maxDelayMs: 5000 }, n))).toEqual([
      200, 400, 800, 5000,
    ]);
    sender.close();
  });

  it('stops at the first 2xx; a per-call policy overrides the sender default', async () => {
    const sender = createWebhookSender({ name: 't', secret: SECRET, attempts: 1 });
    answers = [502];
    const attempts = await sender.deliver(
      `${receiver.url}/hook`,
      { id: newWebhookId(), body: '{}' },
      { attempts: 5, delayMs: 10 },
    );
    expect(attempts.map((a) => a.status)).toEqual([502, 200]);
    sender.close();
  });

  it('records status 0 and the error when nobody answers', async () => {
    const down = createSimServer({ name: 'down' });
    const url = await down.start();
    await down.close();
    const sender = createWebhookSender({ name: 't', secret: SECRET, attempts: 2, delayMs: 10 });
    const attempts = await sender.deliver(`${url}/hook`, { id: newWebhookId(), body: '{}' });
    expect(attempts.map((a) => a.status)).toEqual([0, 0]);
    expect(attempts[0]!.error).toBeTruthy();
    sender.close();
  });

  it('keeps the order per key: a later webhook waits for the earlier one, redeliveries included', async () => {
    const sender = createWebhookSender({ name: 't', secret: SECRET, attempts: 3, delayMs: 30 });
    slowFirstMs = 150;
    answers = [503];
    const url = `${receiver.url}/hook`;
    const done: string[] = [];
    const ids = ['first', 'second', 'third'];
    for (const id of ids) void sender.enqueue('batch-1', url, { id, body: '{}' }).then(() => done.push(id));
    await sender.idle();
    expect(got.map((g) => g.id)).toEqual(['first', 'first', 'second', 'third']);
    expect(done).toEqual(ids);
    sender.close();
  });

  it('close() ends a redelivery pause at once and sends nothing more', async () => {
    const sender = createWebhookSender({ name: 't', secret: SECRET, attempts: 5, delayMs: 10_000 });
    answers = [503, 503, 503, 503, 503];
    const p = sender.enqueue('k', `${receiver.url}/hook`, { id: newWebhookId(), body: '{}' });
    const later = sender.enqueue('k', `${receiver.url}/hook`, { id: newWebhookId(), body: '{}' });
    while (got.length === 0) await new Promise((r) => setTimeout(r, 10));
    const t0 = Date.now();
    sender.close();
    expect(await p).toHaveLength(1); // the one attempt (answered, or aborted in flight)
    expect(await later).toEqual([]);
    await sender.idle();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(got).toHaveLength(1);
  });
});
