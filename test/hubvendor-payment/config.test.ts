// The payment connector's values file (every property of the specification's table, path
// defaults equal to the simulator's), lint and startup failing on a template without its
// placeholder, and values overrides that change behaviour (suppressFT, retryFlag).

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadValues } from '../../engine/config/values.ts';
import { lintProject, startEngine } from '../../engine/engine.ts';
import { DiagnosticError, formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { HUBVENDOR_PATH_DEFAULTS } from '../../sandbox/hubvendor/paths.ts';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { ROUTES, recurringOrder, sepaOrder } from './fixtures.ts';

/** hubvendor requests carry their payload in a `body` envelope */
type HubEnvelope = { body: Record<string, unknown> };

const run = promisify(execFile);

/** The properties of the specification's table "Payment hub outbound connector". */
const SPEC_PROPERTIES = [
  'hubvendor.baseUrl',
  'hubvendor.searchBankDirectoryByBICApiUri',
  'hubvendor.searchBankDirectoryByIBANApiUri',
  'hubvendor.searchBankDirectoryByBankBranchCodeApiUri',
  'hubvendor.ibanValidationApiUri',
  'hubvendor.paymentOrders.apiUri',
  'hubvendor.paymentOrders.update.apiUri',
  'hubvendor.paymentOrders.cancel.apiUri',
  'hubvendor.standingOrders.apiUri',
  'hubvendor.standingOrders.cancel.apiUri',
  'hubvendor.standingOrder.suppressFT',
  'hubvendor.disablePagination',
  'retryFlag',
  'maximumRedeliveries',
  'redeliveryDelay',
  'retryStatuses',
  'backOffMultiplier',
  'http.client.proxy.activate',
];

describe('values/v2/payment-v2.values.yaml', () => {
  const values = loadValues({ dir: 'values', lenient: true });
  const file = values.find('v2/payment-v2')!;

  it('holds every property of the specification with a default', () => {
    expect(file).toBeDefined();
    for (const p of SPEC_PROPERTIES) {
      expect(file.has(p), p).toBe(true);
      expect(file.get(p), p).not.toBeUndefined();
    }
    // the connector id is said once, by the connector document of the route folder
    expect(file.has('connector')).toBe(false);
    expect(parse(readFileSync('routes/hubvendor-payment/connector.yaml', 'utf8')).connector).toBe(
      'gc-hubvendor-payment-connector',
    );
  });

  it('takes the base URL from the environmental key hubvendor-base-url', () => {
    expect(file.props.get('hubvendor.baseUrl')!.value).toBe('${hubvendor-base-url}');
  });

  it('has the specification defaults', () => {
    expect(file.get('hubvendor.standingOrder.suppressFT')).toBe('PAYMENT');
    expect(file.get('hubvendor.disablePagination')).toBe(false);
    expect(file.get('http.client.proxy.activate')).toBe(false);
    expect(file.get('retryFlag')).toBe(true);
    expect(String(file.get('retryStatuses'))).toMatch(/^\d{3}(,\d{3})*$/);
  });

  it('path defaults equal the simulator constants of sandbox/hubvendor/paths.ts', () => {
    const paymentPaths = Object.entries(HUBVENDOR_PATH_DEFAULTS).filter(([k]) => !k.startsWith('hubvendor.forex.'));
    expect(paymentPaths).toHaveLength(9);
    for (const [prop, path] of paymentPaths) expect(file.get(prop), prop).toBe(path);
  });

  it('templates carry their placeholders', () => {
    expect(file.get('hubvendor.ibanValidationApiUri')).toContain('{IBAN}');
    expect(file.get('hubvendor.paymentOrders.update.apiUri')).toContain('{paymentOrderId}');
    expect(file.get('hubvendor.paymentOrders.cancel.apiUri')).toContain('{paymentOrderId}');
    expect(file.get('hubvendor.standingOrders.apiUri')).toContain('{standingOrderId}');
    expect(file.get('hubvendor.standingOrders.cancel.apiUri')).toContain('{standingOrderId}');
  });
});

describe('a template without its placeholder', () => {
  const broken: Record<string, [string, string]> = {
    'hubvendor.ibanValidationApiUri': ['/v1/reference/ibans/validate', '{IBAN}'],
    'hubvendor.paymentOrders.update.apiUri': ['/v1/order/paymentOrders', '{paymentOrderId}'],
    'hubvendor.paymentOrders.cancel.apiUri': ['/v1/order/paymentOrders/cancel', '{paymentOrderId}'],
    'hubvendor.standingOrders.apiUri': ['/v1/order/standingOrders', '{standingOrderId}'],
    'hubvendor.standingOrders.cancel.apiUri': ['/v1/order/standingOrders/cancel', '{standingOrderId}'],
  };

  it('fails `engine lint --set` with a message naming the property and the placeholder', async () => {
    const args = [
      'bin/engine.js',
      'lint',
      'routes/hubvendor-payment',
      '--set',
      'hubvendor.ibanValidationApiUri=/v1/reference/ibans/validate',
    ];
    const err = await run(process.execPath, args, { timeout: 30_000 }).then(
      () => undefined,
      (e) => e,
    );
    expect(err, 'lint must exit non-zero').toBeDefined();
    expect(err.code).toBe(1);
    const out: string = err.stdout;
    expect(out).toMatch(
      /^routes\/hubvendor-payment\/bank-directory\.yaml:\d+:\d+ url template '.*\/v1\/reference\/ibans\/validate' \(from 'hubvendor\.baseUrl' \+ 'hubvendor\.ibanValidationApiUri'\) lacks the placeholder \{IBAN\}/m,
    );
    expect(out).toContain('1 problem(s)');
  });

  for (const [prop, [value, placeholder]] of Object.entries(broken)) {
    it(`lint names ${prop} when it lacks ${placeholder}`, async () => {
      const diags = await lintProject({ routes: ROUTES, set: { [prop]: value }, logger: createLogger('silent') });
      expect(diags.length).toBeGreaterThan(0);
      for (const d of diags) {
        expect(d.message).toContain(`'${prop}'`);
        expect(d.message).toContain(`lacks the placeholder ${placeholder}`);
        expect(d.file).toMatch(/^routes\/hubvendor-payment\//);
      }
    });
  }

  it('a clean project lints clean', async () => {
    const { stdout } = await run(process.execPath, ['bin/engine.js', 'lint', 'routes/hubvendor-payment'], {
      timeout: 30_000,
    });
    expect(stdout.trim()).toBe('no problems');
  });

  it('a template with an extra placeholder is refused too', async () => {
    const diags = await lintProject({
      routes: ROUTES,
      set: { 'hubvendor.paymentOrders.apiUri': '/v1/order/{tenant}/paymentOrders' },
      logger: createLogger('silent'),
    });
    const msgs = diags.map(formatDiagnostic).join('\n');
    expect(msgs).toContain("url template has {tenant} but path-params gives no 'tenant'");
    expect(msgs).toContain("'hubvendor.paymentOrders.apiUri'");
  });

  it('refuses to start the engine, naming the property', async () => {
    const err = await startEngine({
      routes: ROUTES,
      env: 'sandbox',
      port: 0,
      logger: createLogger('silent'),
      set: { 'hubvendor.ibanValidationApiUri': '/v1/reference/ibans/validate' },
    }).then(
      (e) => e.close().then(() => undefined),
      (e) => e,
    );
    expect(err).toBeInstanceOf(DiagnosticError);
    const text = (err as DiagnosticError).diagnostics.map(formatDiagnostic).join('\n');
    expect(text).toContain("'hubvendor.ibanValidationApiUri'");
    expect(text).toContain('lacks the placeholder {IBAN}');
  });
});

describe('values change behaviour', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await startTestEngine({
      routes: ROUTES,
      set: {
        'hubvendor.standingOrder.suppressFT': 'NONE',
        retryFlag: 'false',
        'hubvendor.paymentOrders.apiUri': '/v1/order/paymentOrders',
      },
    });
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('hubvendor.standingOrder.suppressFT is sent as body.suppressFT', async () => {
    const r = await engine.request('POST', '/payments/payment-orders', recurringOrder());
    expect(r.status).toBe(201);
    const call = engine.sandbox.hubvendor.server.requests().at(-1)!;
    expect((call.body as HubEnvelope).body.suppressFT).toBe('NONE');
  });

  it('retryFlag=false: a retryable status is not retried', async () => {
    engine.sandbox.hubvendor.server.clearRequests();
    engine.sandbox.hubvendor.server.addFault({
      method: 'POST',
      path: '^/v1/order/paymentOrders$',
      status: 503,
      times: 1,
    });
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('GC027');
    expect(engine.sandbox.hubvendor.server.requests()).toHaveLength(1);
  });

  it('the routes are listed with the connector id and in OpenAPI with their schemas', async () => {
    const ids = engine.routes.map((r) => [r.id, r.connector]);
    expect(ids).toEqual(
      expect.arrayContaining([
        ['initiate-payment-order', 'gc-hubvendor-payment-connector'],
        ['modify-payment-order', 'gc-hubvendor-payment-connector'],
        ['cancel-payment', 'gc-hubvendor-payment-connector'],
        ['bank-directory', 'gc-hubvendor-payment-connector'],
      ]),
    );
    const doc = (await engine.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/payments/payment-orders',
        '/payments/{externalReferenceNo}',
        '/payments/{externalReferenceNo}/cancel',
        '/payments/bank-directory',
      ]),
    );
    const body = doc.paths['/payments/payment-orders'].post.requestBody.content['application/json'].schema;
    expect(doc.components.schemas[body.$ref.split('/').pop()].required).toContain('transferTransactionInformation');
    expect(doc.paths['/payments/{externalReferenceNo}'].put.parameters[0]).toMatchObject({
      name: 'externalReferenceNo',
      in: 'path',
    });
    expect(doc.paths['/payments/payment-orders'].post.responses['201']).toBeDefined();
  });
});
