// Tracing of a message source against the real RabbitMQ (AMQP 1.0): the W3C traceparent in a
// message's application properties is continued by a consumer span, and the event published for
// the message carries the same trace id. Without a broker this fails; nothing is skipped.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  bodyOf,
  openConnection,
  publish,
  statusMessage,
  uniqueQueue,
  until,
} from '../hubvendor-payment-inbound/helpers.ts';

const exporter = new InMemorySpanExporter();
const queue = uniqueQueue('trace');
let e: TestEngine;

beforeAll(async () => {
  (await openConnection()).close();
  e = await startTestEngine({
    routes: ['routes/hubvendor-payment-inbound'],
    set: {
      'hubvendor-amqp-url': BROKER_URL,
      'hubvendor-amqp-username': BROKER_USER,
      'hubvendor-amqp-password': BROKER_PASSWORD,
      'hubvendor-amqp-queue-name': queue,
    },
    tracing: { exporter },
  });
  await until(async () => (await e.request('GET', '/health/ready')).status === 200, 10_000, 'the consumers to attach');
});
afterAll(async () => {
  await e?.close();
});

describe('tracing an AMQP message', () => {
  it('continues the traceparent of the application properties into the published event', async () => {
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const m = statusMessage();
    m.application_properties = {
      ...(m.application_properties ?? {}),
      traceparent: `00-${traceId}-1122334455667788-01`,
    };
    await publish(queue, [m]);
    const ref = bodyOf(m).paymentOrderId;
    const event = await e.sandbox.eventhub.waitFor((x) => (x.data as any)?.bankReferenceId === ref, 10_000);
    expect(String(event.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await until(() => exporter.getFinishedSpans().some((s) => s.kind === SpanKind.CONSUMER), 5000, 'the consumer span');
    const consumer = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(consumer.spanContext().traceId).toBe(traceId);
    expect(consumer.parentSpanContext?.spanId).toBe('1122334455667788');
    expect(consumer.attributes).toMatchObject({
      'messaging.system': 'amqp',
      'engine.route.id': 'payment-status-inbound',
      'messaging.destination.name': queue,
    });
  }, 30_000);
});
