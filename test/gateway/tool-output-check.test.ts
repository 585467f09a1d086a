// Issue 24, finding 4, through the gateway: a payment hub 200 that does not map to an exchange rate
// makes getExchangeRate a tool error (isError, the 502 GC027 problem), so the official MCP SDK
// client, which validates structuredContent against the tool's outputSchema, does not throw.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { KEY, startGateway, type GatewayTestEngine } from './helpers.ts';

const NAN_RATE = {
  header: { status: 'success' },
  body: {
    buyCurrencyId: 'EUR',
    sellCurrencyId: 'USD',
    currencyMarketId: 1,
    buyRate: 'NaN',
    sellRate: 1.0825,
    middleRate: 1.085,
  },
};

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
beforeEach(() => {
  e.sandbox.hubvendor.server.clearFaults();
});

describe('getExchangeRate with a vendor answer that does not map', () => {
  it('the MCP SDK client gets isError with the GC027 problem, no schema-mismatch throw', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 200, body: NAN_RATE });
    const transport = new StreamableHTTPClientTransport(new URL(`${e.url}/mcp`), {
      requestInit: { headers: { 'Ocp-Gateway-Subscription-Key': KEY } },
    });
    const client = new Client({ name: 'output-check-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      await client.listTools(); // the SDK validates results against the outputSchema it listed
      const r = await client.callTool({
        name: 'getExchangeRate',
        arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' },
      });
      expect(r.isError).toBe(true);
      const problem = JSON.parse((r.content as { text: string }[])[0].text);
      expect(problem).toMatchObject({ status: 502, code: 'GC027', title: 'Generic Error' });
      expect(problem.detail).toContain('/buyRate must be of type number');
      // the vendor comes back: the same client gets a rate
      e.sandbox.hubvendor.server.clearFaults();
      const ok = await client.callTool({
        name: 'getExchangeRate',
        arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' },
      });
      expect(ok.isError).toBe(false);
      expect(typeof (ok.structuredContent as { buyRate: unknown }).buyRate).toBe('number');
    } finally {
      await client.close();
    }
  });

  it('a raw tools/call of a vendor 200 {} is a tool result with isError, not a success with {}', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 200, body: {} });
    const r = await e.rpc('tools/call', {
      name: 'getExchangeRate',
      arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' },
    });
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.isError).toBe(true);
    expect(JSON.parse(r.body.result.content[0].text)).toMatchObject({ status: 502, code: 'GC027' });
  });
});
