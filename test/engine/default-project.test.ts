// The whole shipped project starts on the sandbox, as `npm start` runs it.
import { it, expect } from 'vitest';
import { startTestEngine } from '../helpers/engine.ts';

it('every shipped route and gateway tool loads and serves on the sandbox', async () => {
  const e = await startTestEngine();
  try {
    const ids = e.routes.map((r) => r.id);
    for (const id of ['get-exchange-rate', 'payment-status-inbound', 'submit-credit-batch', 'customer-screening'])
      expect(ids).toContain(id);
    // ready once the AMQP consumer reached the embedded broker
    let ready = await e.request('GET', '/health/ready');
    for (let i = 0; i < 100 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await e.request('GET', '/health/ready');
    }
    expect(ready.body.checks).toMatchObject({ started: true });
    expect(ready.status).toBe(200);
    const api = (await e.request('GET', '/openapi.json')).body;
    for (const p of [
      '/payments/payment-orders',
      '/payments/{externalReferenceNo}/cancel',
      '/batch-payments/credit-batches',
      '/customer-screening',
      '/webhooks/screening',
      '/foreign-exchange/exchange-rates',
    ]) {
      expect(Object.keys(api.paths)).toContain(p);
    }
    const tools = await e.request(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' },
    );
    expect(tools.status).toBe(200);
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).toContain('getExchangeRate');
  } finally {
    await e.close();
  }
});
