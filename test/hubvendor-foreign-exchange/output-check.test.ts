// Issue 24, finding 4: a payment hub answering 200 with something that does not map to an exchange
// rate (`{}`, a rate of "NaN") is the vendor's failure, 502 GC027, logged with the vendor's masked
// text; not a 200 that breaks the route's own output schema. `check-output: false` turns it off.

import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, copyFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { captureLogs } from '../hubvendor-payment-inbound/helpers.ts';

const PATH = '/foreign-exchange/exchange-rates';
const FX = 'routes/hubvendor-foreign-exchange';
const TOKEN = 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLWFsaWNl';
// the vendor echoes the caller's credential into its answer: the log must carry it masked
const NAN_ANSWER = {
  header: { status: 'success', echo: TOKEN },
  body: {
    buyCurrencyId: 'EUR',
    sellCurrencyId: 'USD',
    currencyMarketId: 1,
    buyRate: 'NaN',
    sellRate: 1.0825,
    middleRate: 1.085,
    rateDate: '2026-11-23',
  },
};

/**
 * A copy of the project whose FX route says `check-output: false` (schemas, values, transforms shared; the connector's
 * own files copied).
 */
function projectWithCheckOff(): string {
  const root = mkdtempSync(join(tmpdir(), 'fx-output-'));
  for (const d of ['values', 'schemas', 'transforms']) symlinkSync(resolve(d), join(root, d));
  mkdirSync(join(root, FX), { recursive: true });
  copyFileSync('routes/connector.yaml', join(root, 'routes/connector.yaml'));
  // the connector document, its own schemas and mapping (its tests stay behind)
  cpSync(FX, join(root, FX), { recursive: true, filter: (src) => !/[/\\]tests$/.test(src) });
  const route = readFileSync(join(FX, 'get-exchange-rate.yaml'), 'utf8').replace(
    /^output-schema: .*$/m,
    '$&\ncheck-output: false',
  );
  expect(route).toContain('check-output: false');
  writeFileSync(join(root, FX, 'get-exchange-rate.yaml'), route);
  return root;
}

const forex = (engine: TestEngine, body: unknown) =>
  engine.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 200, body });

describe('FX route: a vendor 200 that does not map', () => {
  let e: TestEngine;
  const logs = captureLogs();
  beforeAll(async () => {
    e = await startTestEngine({ routes: [FX], logger: logs.logger, extensions: [] });
  });
  afterAll(async () => {
    await e?.close();
  });
  beforeEach(() => {
    e.sandbox.hubvendor.server.clearFaults();
  });

  it('the vendor answering 200 {} is 502 GC027 (a problem document), not 200 {}', async () => {
    forex(e, {});
    const r = await e.request(
      'POST',
      PATH,
      { buyCurrency: 'EUR', sellCurrency: 'USD' },
      { 'x-correlation-id': 'fx-empty' },
    );
    expect(r.status).toBe(502);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body).toMatchObject({
      type: 'urn:platform:error:GC027',
      code: 'GC027',
      status: 502,
      title: 'Generic Error',
      correlationId: 'fx-empty',
    });
    expect(r.body.detail).toMatch(
      /^the answer of hubvendor-forex \(200\) does not match the route's output schema: .*\/buyRate is required/,
    );
    const line = logs.lines.find((l) => l.correlationId === 'fx-empty' && l.msg.includes('output schema'));
    expect(line).toMatchObject({
      level: 'error',
      route: 'get-exchange-rate',
      status: 502,
      code: 'GC027',
      vendor: 'hubvendor-forex',
      vendorStatus: 200,
      vendorText: '{}',
    });
  });

  it('a rate of "NaN" is 502 GC027; the log has the vendor text as received with the echoed token masked', async () => {
    forex(e, NAN_ANSWER);
    const r = await e.request(
      'POST',
      PATH,
      { buyCurrency: 'EUR', sellCurrency: 'USD' },
      { 'x-correlation-id': 'fx-nan', authorization: TOKEN },
    );
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('GC027');
    expect(r.body.detail).toContain('/buyRate must be of type number');
    // the caller never sees the vendor's text
    expect(JSON.stringify(r.body)).not.toContain('NaN');
    const line = logs.lines.find((l) => l.correlationId === 'fx-nan' && l.msg.includes('output schema'));
    expect(line.vendorText).toContain('"buyRate":"NaN"');
    expect(line.vendorText).toContain('"echo":"Bearer eyJh****"');
    expect(line.outputErrors).toEqual([{ field: '/buyRate', message: 'must be of type number' }]);
    expect(logs.text()).not.toContain(TOKEN.slice('Bearer '.length));
  });

  it('a long vendor answer is logged truncated', async () => {
    forex(e, { header: { status: 'success', note: 'x'.repeat(5000) }, body: {} });
    const r = await e.request(
      'POST',
      PATH,
      { buyCurrency: 'EUR', sellCurrency: 'USD' },
      { 'x-correlation-id': 'fx-long' },
    );
    expect(r.status).toBe(502);
    const line = logs.lines.find((l) => l.correlationId === 'fx-long' && l.msg.includes('output schema'));
    expect(line.vendorText.length).toBeLessThanOrEqual(501);
    expect(line.vendorText.endsWith('…')).toBe(true);
  });

  it('a good answer still passes', async () => {
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(200);
    expect(typeof r.body.buyRate).toBe('number');
  });
});

describe('FX route with check-output: false', () => {
  let off: TestEngine;
  beforeAll(async () => {
    off = await startTestEngine({ routes: [FX], root: projectWithCheckOff(), extensions: [] });
  });
  afterAll(async () => {
    await off?.close();
  });

  it('the same answers are 200 as before', async () => {
    forex(off, {});
    const empty = await off.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({});
    off.sandbox.hubvendor.server.clearFaults();
    forex(off, NAN_ANSWER);
    const nan = await off.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(nan.status).toBe(200);
    expect(nan.body.buyRate).toBe('NaN');
  });
});
