// The achvendor simulator on its own: header checks, idempotency, lifecycle and cancel rules.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startAchvendor,
  type Achvendor,
  SUBMIT_CREDIT_BATCH_PATH,
  BATCH_CANCEL_PATH,
  CONTROL_FAIL_AFTER_ACCEPT_PATH,
  SANDBOX_CLIENT_KEY,
} from '../../sandbox/achvendor/index.ts';
import { batch, entry } from './fixtures.ts';

let ach: Achvendor;
beforeAll(async () => {
  ach = await startAchvendor({ stepDelayMs: null, webhookBaseUrl: null });
});
afterAll(() => ach.close());

const headers = (over: Record<string, string | undefined> = {}) => {
  const h: Record<string, string | undefined> = {
    'content-type': 'application/json',
    client_key: SANDBOX_CLIENT_KEY,
    client_requestor_reference: 'test',
    product: 'business_transfers',
    payment_channel: 'business_banking',
    requestor_type: 'party',
    timestamp: new Date().toISOString(),
    idempotent_request_key: `k-${Math.random()}`,
    ...over,
  };
  return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>;
};
const post = async (path: string, body: unknown, h = headers()) => {
  const r = await fetch(ach.url + path, { method: 'POST', headers: h, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any, headers: r.headers };
};
const vb = (over = {}): Record<string, any> => ({ ...batch(over), originating_dfi: '021000021' });

describe('achvendor simulator', () => {
  it('checks the headers with its error body', async () => {
    expect(await post(SUBMIT_CREDIT_BATCH_PATH, vb(), headers({ client_key: 'wrong' }))).toMatchObject({
      status: 401,
      body: { code: 'RSK-10-1002', message: 'Invalid header client key', target: 'header.client_key' },
    });
    expect((await post(SUBMIT_CREDIT_BATCH_PATH, vb(), headers({ product: undefined }))).body).toMatchObject({
      code: 'RSK-10-1001',
      target: 'header.product',
    });
    expect(
      (await post(SUBMIT_CREDIT_BATCH_PATH, vb(), headers({ idempotent_request_key: undefined }))).body.target,
    ).toBe('header.idempotent_request_key');
    expect((await post(SUBMIT_CREDIT_BATCH_PATH, vb(), headers({ payment_channel: 'fax' }))).body).toMatchObject({
      code: 'RSK-10-1003',
    });
  });

  it('checks the batch: direction codes, ABA, originating_dfi', async () => {
    expect(
      (await post(SUBMIT_CREDIT_BATCH_PATH, { ...vb(), entries: [entry({ transaction_code: '27' })] })).body,
    ).toMatchObject({ code: 'RSK-20-2005', target: 'body.entries[0].transaction_code' });
    expect((await post(SUBMIT_CREDIT_BATCH_PATH, { ...vb(), originating_dfi: '123456789' })).body.code).toBe(
      'RSK-20-2004',
    );
  });

  it('replays on the same idempotent_request_key, refuses it for another body', async () => {
    const h = headers();
    const b = vb();
    const a = await post(SUBMIT_CREDIT_BATCH_PATH, b, h);
    const again = await post(SUBMIT_CREDIT_BATCH_PATH, b, h);
    expect(again.body.batch_id).toBe(a.body.batch_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await post(SUBMIT_CREDIT_BATCH_PATH, vb(), h)).body.code).toBe('RSK-20-2003');
  });

  it('moves through the lifecycle; cancel only before SUBMITTED', async () => {
    const a = await post(SUBMIT_CREDIT_BATCH_PATH, vb());
    const id = a.body.batch_id;
    expect([ach.advance(id), ach.advance(id), ach.advance(id), ach.advance(id)]).toEqual([
      'VALIDATING',
      'ACCEPTED',
      'SUBMITTED',
      'SETTLED',
    ]);
    expect((await post(BATCH_CANCEL_PATH, { batch_id: id })).body).toMatchObject({ code: 'RSK-30-3002' });
    const b = await post(SUBMIT_CREDIT_BATCH_PATH, vb());
    ach.advance(b.body.batch_id);
    expect((await post(BATCH_CANCEL_PATH, { batch_id: b.body.batch_id })).body).toEqual({
      batch_id: b.body.batch_id,
      status: 'CANCELLED',
      previous_status: 'VALIDATING',
    });
    expect((await post(BATCH_CANCEL_PATH, { batch_id: 'nope' })).status).toBe(404);
  });

  it('fail-after-accept stores the batch, then answers the vendor 503; the replay gets the batch', async () => {
    const ctl = await fetch(ach.url + CONTROL_FAIL_AFTER_ACCEPT_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ times: 1 }),
    });
    expect(await ctl.json()).toEqual({ times: 1, status: 503 });
    expect(ach.server.faults()).toEqual([expect.objectContaining({ after: true, status: 503, times: 1 })]);
    const h = headers();
    const b = vb();
    const lost = await post(SUBMIT_CREDIT_BATCH_PATH, b, h);
    expect(lost).toMatchObject({
      status: 503,
      body: { code: 'RSK-90-9503', message: 'Service temporarily unavailable', target: 'gateway' },
    });
    const stored = [...ach.batches.values()].filter((x) => x.batch_reference === b.batch_reference);
    expect(stored).toHaveLength(1);
    const again = await post(SUBMIT_CREDIT_BATCH_PATH, b, h);
    expect(again.status).toBe(200);
    expect(again.body.batch_id).toBe(stored[0]!.batch_id);
    // a new setting replaces the last one; times 0 turns it off
    ach.failAfterAccept(2, 502);
    ach.failAfterAccept(0);
    expect(ach.server.faults()).toEqual([]);
    const bad = await fetch(ach.url + CONTROL_FAIL_AFTER_ACCEPT_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ times: 'x' }),
    });
    expect(bad.status).toBe(400);
  });
});
