// The official MCP SDK client (Streamable HTTP transport) against the gateway: connect, list,
// call a public tool, call a user-scoped tool with a bearer token, and see a tool error.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { KEY, startGateway, type GatewayTestEngine } from './helpers.ts';

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

async function connect(headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${e.url}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'gateway-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('official MCP SDK client', () => {
  it('connects, lists and calls a public tool with the subscription key', async () => {
    const client = await connect({ 'Ocp-Gateway-Subscription-Key': KEY });
    try {
      expect(client.getServerVersion()?.name).toBe('bank-integration-platform');
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'getExchangeRate',
        'getMyAccountBalance',
        'getMyTransactionHistory',
        'listProducts',
      ]);
      const r = await client.callTool({
        name: 'getExchangeRate',
        arguments: { buyCurrency: 'EUR', sellCurrency: 'JPY', transactionAmount: '250.00' },
      });
      expect(r.isError).toBe(false);
      expect(r.structuredContent).toMatchObject({
        buyCurrency: 'EUR',
        sellCurrency: 'JPY',
        transactionAmount: '250.00',
      });
      const bad = await client.callTool({
        name: 'getExchangeRate',
        arguments: { buyCurrency: 'XXX1', sellCurrency: 'JPY' },
      });
      expect(bad.isError).toBe(true);
      await client.ping();
    } finally {
      await client.close();
    }
  });

  it('calls a user-scoped tool with a bearer token', async () => {
    const token = await e.token('alice');
    const client = await connect({ 'Ocp-Gateway-Subscription-Key': KEY, Authorization: `Bearer ${token}` });
    try {
      const r = await client.callTool({ name: 'getMyTransactionHistory', arguments: { limit: 3 } });
      expect(r.isError).toBe(false);
      const s = r.structuredContent as { userId: string; transactions: unknown[] };
      expect(s.userId).toBe('alice');
      expect(s.transactions).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('fails to connect without a valid key', async () => {
    await expect(connect({ 'Ocp-Gateway-Subscription-Key': 'wrong' })).rejects.toThrow(
      /401|invalid_subscription_key|Unauthorized/,
    );
  });
});
