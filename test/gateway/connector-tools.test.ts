// Tools for the payment and screening routes, declared in YAML only, served through /mcp.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';

const KEY = { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' };
let e: TestEngine;
let id = 0;
const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) =>
  e.request('POST', '/mcp', { jsonrpc: '2.0', id: ++id, method, params }, { ...KEY, ...headers });

beforeAll(async () => { e = await startTestEngine(); });
afterAll(async () => { await e?.close(); });

describe('connector tools through the gateway', () => {
  it('lists them with the input schemas of their routes', async () => {
    const r = await rpc('tools/list', {});
    const tools = Object.fromEntries(r.body.result.tools.map((t: any) => [t.name, t]));
    for (const name of ['lookupBankDirectory', 'initiatePaymentOrder', 'screenCustomer']) expect(tools[name]).toBeDefined();
    expect(tools.lookupBankDirectory.inputSchema.properties.identificationType).toBeDefined();
    expect(tools.initiatePaymentOrder.inputSchema.properties.transferTransactionInformation).toBeDefined();
  });

  it('a public tool needs the key only: bank directory lookup by BIC', async () => {
    const r = await rpc('tools/call', { name: 'lookupBankDirectory', arguments: { identificationType: 'BIC', identification: 'DEUTDEFFXXX' } });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBeFalsy();
    expect(JSON.stringify(r.body.result.structuredContent)).toContain('DEUTDEFF');
  });

  it('a payment needs a bearer token; with one it is initiated at the hub', async () => {
    const order = {
      paymentType: 'SEPA',
      requestedExecutionDate: '2030-01-15',
      originatorAccount: { name: 'Acme GmbH', identification: { identification: 'DE89370400440532013000', schemeName: 'IBAN' } },
      transferTransactionInformation: {
        endToEndIdentification: `E2E-TOOL-${Date.now()}`,
        instructedAmount: { amount: '100.25', currencyCode: 'EUR' },
        counterparty: { name: 'Jane Doe' },
        counterpartyAccount: { identification: { identification: 'FR1420041010050500013M02606', schemeName: 'IBAN' } },
      },
    };
    const anonymous = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order });
    expect(anonymous.status).toBe(401);
    const before = e.sandbox.hubvendor.state.paymentOrdersCreated;
    const token = await signSandboxToken({ sub: 'alice' });
    const r = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order }, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBeFalsy();
    expect(r.body.result.structuredContent.bankReferenceId).toMatch(/^PO/);
    expect(e.sandbox.hubvendor.state.paymentOrdersCreated).toBe(before + 1);
  });

  it('a failing tool answers isError with the platform error, not a protocol error', async () => {
    const token = await signSandboxToken({ sub: 'alice' });
    const r = await rpc('tools/call', { name: 'screenCustomer', arguments: { customerReference: 'C-1', company: { name: 'ACME Ltd' } } }, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(JSON.stringify(r.body.result)).toMatch(/GC025|KYB/);
  });
});
