// The sandbox as an extension: the simulators call the engine's actual URL (port 0 here, as
// `--port N` elsewhere) for their webhooks, and an environment without `simulated: true` starts none.
import { it, expect } from 'vitest';
import { startTestEngine } from '../helpers/engine.ts';
import { startEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import type { Achvendor } from '../../sandbox/achvendor/index.ts';
import type { Screenvendor } from '../../sandbox/screenvendor/index.ts';
import { batch } from '../achvendor-batch-payment/fixtures.ts';

it('batch status and screening webhooks reach an engine listening on port 0', async () => {
  const e = await startTestEngine({
    routes: [
      'routes/achvendor-batch-payment',
      'routes/achvendor-batch-payment-inbound',
      'routes/screenvendor-screening',
    ],
    port: 0,
  });
  try {
    const ach = e.sandbox.services.achvendor as Achvendor;
    const sv = e.sandbox.services.screenvendor as Screenvendor;
    ach.setStepDelay(null);
    expect(sv.webhookUrl).toBe(`${e.url}/webhooks/screening`);

    const submitted = await e.request('POST', '/batch-payments/credit-batches', batch());
    expect(submitted.status).toBe(202);
    const batchId = submitted.body.batch_id as string;
    ach.advance(batchId);
    await ach.idle();
    const batchEvents = e.sandbox.eventhub
      .events({ type: 'com.platform.payment.event.spec.v1.BatchStatusUpdateEvent' })
      .filter((x: any) => x.data.batch_id === batchId);
    expect(batchEvents.map((x: any) => x.data.status)).toEqual(['RECEIVED', 'VALIDATING']);
    expect(
      ach
        .deliveries()
        .filter((d) => d.body.batch_id === batchId)
        .every((d) => d.url.startsWith(e.url) && d.delivered),
    ).toBe(true);

    const screened = await e.request('POST', '/customer-screening', {
      customerReference: `EXT-${Date.now()}`,
      person: { firstName: 'John', lastName: 'Smith' },
      identityProofingTaskDescription: { monitoringFlag: 'Y' },
    });
    expect(screened.status).toBe(200);
    const t = await sv.triggerCaseCreated(screened.body.caseReference);
    expect(t.delivered).toBe(true);
    expect(
      e.sandbox.eventhub
        .events({ type: 'com.platform.screening.event.spec.v1.ScreeningMonitoringEvent' })
        .some((x: any) => x.data.caseReference === screened.body.caseReference),
    ).toBe(true);
  } finally {
    await e.close();
  }
}, 30_000);

it('an environment without simulated: true starts no simulators', async () => {
  const ext = sandboxExtension();
  const e = await startEngine({
    routes: ['routes/hubvendor-foreign-exchange'],
    env: 'production',
    port: 0,
    logger: createLogger('silent'),
    extensions: [ext],
    processEnv: { HUBVENDOR_BASE_URL: 'http://127.0.0.1:9' },
  });
  try {
    expect(ext.sandbox).toBeUndefined();
    expect(e.simulators).toEqual({});
  } finally {
    await e.close();
  }
});

it('an environment with simulated: true but no sandbox extension refuses to start, saying why', async () => {
  const err = await startEngine({
    routes: ['routes/hubvendor-foreign-exchange'],
    env: 'sandbox',
    port: 0,
    logger: createLogger('silent'),
  }).then(
    (e) => e.close().then(() => undefined),
    (x) => x,
  );
  expect(String(err?.diagnostics?.map((d: any) => d.message))).toContain('no extension starts the simulators');
});
