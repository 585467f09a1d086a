// Mcp-Method, Mcp-Name and Mcp-Param-* before 2026-07-28 (no MCP-Protocol-Version, 2025-11-25,
// 2025-06-18): not required, but a header that is sent and disagrees with the body is refused as
// in 2026-07-28 (400, HeaderMismatch -32020), so a client cannot slip past a proxy that routes or
// filters on them. Over raw HTTP.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayTestEngine } from './helpers.ts';

let e: GatewayTestEngine;
beforeAll(async () => {
  e = await startGateway({
    'gateway.rateLimits.anonymous': '100000',
    'gateway.rateLimits.subscriptionPublic': '100000',
  });
});
afterAll(async () => {
  await e?.close();
});

const FX = { buyCurrency: 'EUR', sellCurrency: 'USD' };
const FX_CALL = { name: 'getExchangeRate', arguments: FX };

let n = 0;
function send(
  version: string | undefined,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const id = ++n;
  return e
    .mcp(
      { jsonrpc: '2.0', id, method, params },
      { ...(version ? { 'mcp-protocol-version': version } : {}), ...headers },
    )
    .then((r) => ({ ...r, id }));
}

for (const version of [undefined, '2025-11-25', '2025-06-18']) {
  describe(`MCP-Protocol-Version ${version ?? 'absent'}`, () => {
    const refused = async (
      method: string,
      params: Record<string, unknown>,
      headers: Record<string, string>,
      what: RegExp,
    ) => {
      const r = await send(version, method, params, headers);
      expect(r.status, JSON.stringify(headers)).toBe(400);
      expect(r.body).toMatchObject({
        jsonrpc: '2.0',
        id: r.id,
        error: { code: -32020, message: expect.stringMatching(what) },
      });
    };

    it('an Mcp-Method header that disagrees with the body is refused', async () => {
      await refused('tools/list', {}, { 'mcp-method': 'tools/call' }, /^Header mismatch: the Mcp-Method header/);
      await refused('tools/call', FX_CALL, { 'mcp-method': 'tools/list' }, /^Header mismatch: the Mcp-Method header/);
    });

    it('an Mcp-Name header that disagrees with the body is refused, plain or Base64', async () => {
      await refused('tools/call', FX_CALL, { 'mcp-name': 'listProducts' }, /^Header mismatch: the Mcp-Name header/);
      await refused(
        'tools/call',
        FX_CALL,
        { 'mcp-name': `=?base64?${Buffer.from('listProducts').toString('base64')}?=` },
        /^Header mismatch: the Mcp-Name header/,
      );
      await refused(
        'tools/call',
        FX_CALL,
        { 'mcp-name': '=?base64?Z2V0RXhj.aGFuZ2VSYXRl?=' },
        /^Header mismatch: the Mcp-Name header/,
      );
    });

    it('an Mcp-Param-* header that disagrees with its argument, or has none, is refused', async () => {
      await refused(
        'tools/call',
        FX_CALL,
        { 'mcp-param-buycurrency': 'GBP' },
        /^Header mismatch: Mcp-Param-BuyCurrency/,
      );
      await refused(
        'tools/call',
        FX_CALL,
        { 'mcp-param-buycurrency': 'EUR', 'mcp-param-sellcurrency': 'usd' },
        /^Header mismatch: Mcp-Param-SellCurrency/,
      );
      await refused(
        'tools/call',
        { name: 'getExchangeRate', arguments: { sellCurrency: 'USD' } },
        { 'mcp-param-buycurrency': 'EUR' },
        /^Header mismatch: Mcp-Param-BuyCurrency is sent but/,
      );
    });

    it('headers that match the body are served; headers not sent are not required', async () => {
      const b64 = `=?base64?${Buffer.from('getExchangeRate').toString('base64')}?=`;
      const sets: Record<string, string>[] = [
        {
          'mcp-method': 'tools/call',
          'mcp-name': 'getExchangeRate',
          'mcp-param-buycurrency': 'EUR',
          'mcp-param-sellcurrency': 'USD',
        },
        { 'mcp-name': b64, 'mcp-param-sellcurrency': 'USD' },
        {},
      ];
      for (const headers of sets) {
        const r = await send(version, 'tools/call', FX_CALL, headers);
        expect(r.status, JSON.stringify(headers)).toBe(200);
        expect(r.body.result, JSON.stringify(headers)).toMatchObject({
          isError: false,
          structuredContent: { buyCurrency: 'EUR' },
        });
      }
      const list = await send(version, 'tools/list', {}, { 'mcp-method': 'tools/list' });
      expect(list.status).toBe(200);
      expect(list.body.result.tools.length).toBeGreaterThan(0);
    });
  });
}
