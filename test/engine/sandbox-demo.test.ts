// The sandbox demo: a payment initiated by the demo route travels hub -> AMQP (embedded endpoint)
// -> payment inbound connector -> event hub sink.
import { it, expect } from 'vitest';
import { startTestEngine } from '../helpers/engine.ts';

it('a demo payment ends as payment status events on the event hub sink', async () => {
  // the schedule is far away: the test runs the demo route itself
  const e = await startTestEngine({ set: { 'sandbox-demo:demo.payments.schedule': '0 0 1 1 *' } });
  try {
    const r = await e.call('sandbox-demo-payments', {});
    const ref = (r.body as { bankReferenceId: string }).bankReferenceId;
    expect(ref).toMatch(/^PO/);
    const event = await e.sandbox.eventhub.waitFor(
      (ev) => (ev.data as { bankReferenceId?: string })?.bankReferenceId === ref,
      15_000,
    );
    expect(event.type).toBe('com.platform.payment.event.spec.v1.PaymentOrderStatusEvent');
    expect(event.topic).toBe('payment-status');
    expect(['ACCEPTED', 'PROCESSED', 'REJECTED']).toContain((event.data as { bankStatus: string }).bankStatus);
  } finally {
    await e.close();
  }
}, 30_000);
