// JSON bodies nested deeper than engine.server.jsonDepthLimit (default 64) are refused before any
// route runs: a 400 problem (GC025) for engine routes, a JSON-RPC invalid request for /mcp.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { jsonDeeperThan } from '../../engine/http/json-depth.ts';
import { ENGINE_DEFAULTS } from '../../engine/config/engine-settings.ts';

const LIMIT = ENGINE_DEFAULTS.server.jsonDepthLimit;
/** `levels` arrays inside one another around `inner` */
const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels);

let e: TestEngine;
beforeAll(async () => {
  e = await startTestEngine({
    routes: [
      'routes/hubvendor-payment',
      'routes/screenvendor-screening',
      'routes/hubvendor-foreign-exchange',
      'routes/gateway',
      'routes/platform-backend',
    ],
  });
});
afterAll(async () => {
  await e?.close();
});

describe('JSON depth limit on engine routes', () => {
  it('10,000 levels is a 400 naming the limit, on cancel and on customer screening', async () => {
    for (const path of ['/payments/PO-123/cancel', '/customer-screening']) {
      const r = await e.request('POST', path, nested(10_000));
      expect(r.status, path).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.body).toMatchObject({
        status: 400,
        code: 'GC025',
        detail: `the body nests arrays and objects deeper than the limit of ${LIMIT} levels`,
      });
    }
    // also inside an object, where a route would read it
    const r = await e.request(
      'POST',
      '/customer-screening',
      `{"customerReference":"C1","person":${nested(10_000, '{}')}}`,
    );
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('GC025');
  });

  it('one level over the limit is refused; exactly the limit passes the depth check', async () => {
    // the outer object is level 1
    const over = await e.request(
      'POST',
      '/foreign-exchange/exchange-rates',
      `{"buyCurrency":${nested(LIMIT)},"sellCurrency":"USD"}`,
    );
    expect(over.status).toBe(400);
    expect(over.body.detail).toContain(`limit of ${LIMIT} levels`);
    const at = await e.request(
      'POST',
      '/foreign-exchange/exchange-rates',
      `{"buyCurrency":${nested(LIMIT - 1)},"sellCurrency":"USD"}`,
    );
    expect(at.status).toBe(400);
    expect(at.body.detail).not.toContain('levels');
    expect(JSON.stringify(at.body.errors)).toContain('buyCurrency');
  });
});

describe('JSON depth limit on /mcp', () => {
  it('10,000 levels is a JSON-RPC invalid request, not a 500', async () => {
    const r = await e.request(
      'POST',
      '/mcp',
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getExchangeRate","arguments":${nested(10_000, '{}')}}}`,
      {
        'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key',
        accept: 'application/json, text/event-stream',
      },
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(r.body.error.message).toContain(`limit of ${LIMIT} levels`);
  });
});

describe('jsonDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonDeeperThan(Buffer.from(nested(4)), 3)).toBe(true);
    expect(jsonDeeperThan(`{"a":{"b":{"c":"[[[[[[[[[[\\"[[[[[["}}}`, 3)).toBe(false);
    expect(jsonDeeperThan(`{"a":"\\\\","b":[[[1]]]}`, 3)).toBe(true);
    expect(jsonDeeperThan(`[{"a":1},{"b":[2]},[3],[[4]]]`, 3)).toBe(false);
  });
});
