// JSON bodies nested deeper than engine.server.jsonDepthLimit (default 64) are refused before any
// route runs: a 400 problem (GC025) for engine routes, a JSON-RPC invalid request for /mcp. Engine
// routes check the parsed value (valueDeeperThan), /mcp the text (jsonDeeperThan): both must agree.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { jsonDeeperThan, valueDeeperThan } from '../../engine/http/json-depth.ts';
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

  it('a body both malformed and too deep is refused for its depth; a malformed one within it as not JSON', async () => {
    const deep = await e.request('POST', '/customer-screening', nested(10_000).slice(0, -1));
    expect(deep.status).toBe(400);
    expect(deep.body.detail).toBe(`the body nests arrays and objects deeper than the limit of ${LIMIT} levels`);
    const shallow = await e.request('POST', '/customer-screening', `{"customerReference":${nested(LIMIT - 1)}`);
    expect(shallow.status).toBe(400);
    expect(shallow.body.detail).toBe('the body is not valid JSON');
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

describe('jsonDeeperThan and valueDeeperThan', () => {
  it('the parsed value has the depth of its text', () => {
    const texts = [
      nested(3),
      nested(4),
      `{"a":{"b":{"c":"[[[[[[[[[[\\"[[[[[["}}}`,
      `{"a":"\\\\","b":[[[1]]]}`,
      `[{"a":1},{"b":[2]},[3],[[4]]]`,
      `{"a":[],"b":{},"c":[{}],"d":[[[]]]}`,
      `[[[[]]],{"x":{"y":{"z":{}}}}]`,
      `{"__proto__":{"a":[[[1]]]}}`,
      '1',
      '"[[[["',
      'null',
    ];
    // seeded: arrays and objects nested to random depths, up to 8 levels
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const gen = (d: number): string =>
      d === 0 || rnd() < 0.2
        ? JSON.stringify(rnd() < 0.5 ? 'x[{' : 1)
        : rnd() < 0.5
          ? `[${Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => gen(d - 1)).join(',')}]`
          : `{${Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, i) => `"k${i}":${gen(d - 1)}`).join(',')}}`;
    for (let i = 0; i < 200; i++) texts.push(gen(1 + (i % 8)));
    for (const text of texts) {
      for (const limit of [1, 2, 3, 4, 5, 6]) {
        expect(valueDeeperThan(JSON.parse(text), limit), `${text} at ${limit}`).toBe(jsonDeeperThan(text, limit));
      }
    }
    expect(valueDeeperThan(JSON.parse(nested(100_000)), LIMIT)).toBe(true);
  });

  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonDeeperThan(Buffer.from(nested(4)), 3)).toBe(true);
    expect(jsonDeeperThan(`{"a":{"b":{"c":"[[[[[[[[[[\\"[[[[[["}}}`, 3)).toBe(false);
    expect(jsonDeeperThan(`{"a":"\\\\","b":[[[1]]]}`, 3)).toBe(true);
    expect(jsonDeeperThan(`[{"a":1},{"b":[2]},[3],[[4]]]`, 3)).toBe(false);
  });
});
