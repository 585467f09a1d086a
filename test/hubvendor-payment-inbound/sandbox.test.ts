// `npm start` path: the hubvendor simulator publishes status messages to the embedded AMQP 1.0
// endpoint, the connector consumes them and the sandbox event hub receives the events.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { PAYMENT_ORDERS_PATH } from '../../sandbox/hubvendor/index.ts';
import type { AmqpEndpoint } from '../../sandbox/amqp/index.ts';
import { stableId } from '../../engine/core/functions.ts';

const TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
let engine: TestEngine;

beforeAll(async () => {
  engine = await startTestEngine({ routes: ['routes/hubvendor-payment-inbound'] });
});
afterAll(() => engine?.close());

describe('payment inbound on the sandbox', () => {
  it('is ready once its consumers are attached to the embedded endpoint', async () => {
    let r = await engine.request('GET', '/health/ready');
    for (let i = 0; i < 50 && r.status !== 200; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await engine.request('GET', '/health/ready');
    }
    expect(r.status).toBe(200);
    expect(r.body.checks['amqp:payment-status-inbound']).toBe(true);
  });

  it('publishes an event per status change of a payment order at the hub', async () => {
    const e2e = `E2E-SBX-${Date.now()}`;
    const res = await fetch(engine.sandbox.hubvendor.url + PAYMENT_ORDERS_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        header: {},
        body: {
          paymentOrderProductId: 'SEPA',
          debitAccountId: '100234567',
          paymentCurrencyId: 'EUR',
          amount: '310.99',
          beneficiaryIBAN: 'DE89370400440532013000',
          beneficiaryBIC: 'COBADEFFXXX',
          beneficiaryName: 'Erika Mustermann',
          orderingCustomerName: 'Max Mustermann',
          endToEndReference: e2e,
          executionDate: new Date().toISOString().slice(0, 10),
          chargeBearer: 'SHA',
        },
      }),
    });
    expect(res.status).toBe(201);
    const id = (await res.json()).body.paymentInstruction.instructionId as string;
    const hub = engine.sandbox.eventhub;
    const accepted = await hub.waitFor(
      (e) => (e.data as any)?.bankReferenceId === id && (e.data as any).bankStatus === 'ACCEPTED',
      5000,
    );
    const rejected = await hub.waitFor(
      (e) => (e.data as any)?.bankReferenceId === id && (e.data as any).bankStatus === 'REJECTED',
      8000,
    );
    expect(accepted).toMatchObject({
      type: TYPE,
      source: 'com.platform.payments',
      topic: 'payment-status',
      dataversion: '1.0.0',
      subject: id,
    });
    expect(rejected.data).toEqual({
      bankReferenceId: id,
      endToEndReference: e2e,
      bankStatus: 'REJECTED',
      reasonCode: 'AC04',
      reasonText: 'Closed account number',
      statusDateTime: expect.any(String),
    });
    expect(accepted.id).not.toBe(rejected.id);
    const amqp = engine.sandbox.services.amqp as AmqpEndpoint;
    await amqp.waitForEmpty('payment-status', 3000);
    expect(amqp.stats('payment-status')).toMatchObject({ rejected: 0 });
  }, 20_000);

  it('derives the event id from the AMQP message id', async () => {
    const amqp = engine.sandbox.services.amqp as AmqpEndpoint;
    amqp.publish('payment-status', {
      message_id: 'sbx-fixed-id-1',
      body: JSON.stringify({
        paymentOrderId: 'PO-SBX-1',
        endToEndReference: null,
        status: 'PROCESSED',
        statusReasonCode: null,
        statusDateTime: new Date().toISOString(),
      }),
    });
    const e = await engine.sandbox.eventhub.waitFor((x) => (x.data as any)?.bankReferenceId === 'PO-SBX-1', 5000);
    expect(e.id).toBe(stableId(TYPE, 'sbx-fixed-id-1'));
    expect(e.data).toMatchObject({
      bankStatus: 'PROCESSED',
      reasonCode: null,
      reasonText: null,
      endToEndReference: null,
    });
  });
});
