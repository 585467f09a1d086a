// Baseline for the payment inbound benchmark: a minimal hand-written rhea consumer doing the same
// work as the route — parse the status message, check its required fields, map it, POST a
// CloudEvent (structured mode) to the event hub and accept the message only after a 2xx, release
// it otherwise. `consumers` receiver links with credit 1 each, like the connector.
// Usage: node --import tsx bench/hubvendor-payment-inbound/baseline.ts <amqp-url> <queue> <event-hub-url> <consumers>

import rhea from 'rhea';
import { Pool } from 'undici';
import { stableId } from '../../engine/core/functions.ts';

const [url, queue, hubUrl, consumersArg] = process.argv.slice(2) as [string, string, string, string];
const u = new URL(url);
const hub = new URL(hubUrl);
const pool = new Pool(hub.origin, { connections: 50 });
const TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';

const container = rhea.create_container();
const conn = container.connect({
  host: u.hostname,
  port: Number(u.port || 5672),
  reconnect: false,
  username: process.env.HUBVENDOR_AMQP_USERNAME,
  password: process.env.HUBVENDOR_AMQP_PASSWORD,
});
conn.on('connection_open', () => {
  for (let i = 0; i < Number(consumersArg); i++) {
    const r = conn.open_receiver({ source: { address: queue }, autoaccept: false, credit_window: 0 });
    r.on('receiver_open', () => r.add_credit(1));
    r.on('message', async (ctx) => {
      const d = ctx.delivery!;
      try {
        const b = JSON.parse(ctx.message.body as string);
        if (
          typeof b.paymentOrderId !== 'string' ||
          typeof b.status !== 'string' ||
          typeof b.statusDateTime !== 'string'
        ) {
          d.reject({ condition: 'amqp:precondition-failed', description: 'invalid' });
        } else {
          const event = {
            specversion: '1.0',
            id: stableId(TYPE, ctx.message.message_id),
            source: 'com.platform.payments',
            type: TYPE,
            time: new Date().toISOString(),
            datacontenttype: 'application/json',
            dataversion: '1.0.0',
            topic: 'payment-status',
            subject: b.paymentOrderId,
            data: {
              bankReferenceId: b.paymentOrderId,
              endToEndReference: b.endToEndReference ?? null,
              bankStatus: b.status,
              reasonCode: b.statusReasonCode ?? null,
              reasonText: null,
              statusDateTime: b.statusDateTime,
            },
          };
          const res = await pool.request({
            method: 'POST',
            path: hub.pathname,
            headers: { 'content-type': 'application/cloudevents+json' },
            body: JSON.stringify(event),
          });
          await res.body.dump();
          if (res.statusCode >= 200 && res.statusCode < 300) d.accept();
          else d.release();
        }
      } catch {
        d.release();
      }
      r.add_credit(1);
    });
  }
});
process.on('SIGTERM', () => {
  conn.close();
  void pool.close().then(() => process.exit(0));
});
