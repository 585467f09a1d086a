// Tools for the payment and screening routes, declared in YAML only, served through /mcp.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { ibansOfUser } from '../../sandbox/platform-backend/index.ts';

/** a user pays from one of their own accounts (the sandbox platform backend's) */
const own = (user: string) => ({ identification: ibansOfUser(user)[0], schemeName: 'IBAN' });

/** A SEPA payment order from `user`'s first account, with a fresh end-to-end reference. */
function sepaFrom(user: string, prefix: string, amount = '100.25') {
  return {
    paymentType: 'SEPA',
    requestedExecutionDate: '2030-01-15',
    originatorAccount: { name: `${user} account holder`, identification: own(user) },
    transferTransactionInformation: {
      endToEndIdentification: `${prefix}-${Date.now()}`,
      instructedAmount: { amount, currencyCode: 'EUR' },
      counterparty: { name: 'Jane Doe' },
      counterpartyAccount: { identification: { identification: 'FR1420041010050500013M02606', schemeName: 'IBAN' } },
    },
  };
}

const KEY = { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' };
let e: TestEngine;
let id = 0;
const legacy = (method: string, params: unknown, headers: Record<string, string> = {}) =>
  e.request('POST', '/mcp', { jsonrpc: '2.0', id: ++id, method, params }, { ...KEY, ...headers });

/** the money-moving tools (confirm: required): the user confirms each call (confirmation.test.ts tests that) */
const CONFIRMED = new Set(['initiatePaymentOrder', 'modifyPaymentOrder', 'cancelPayment']);
const V26 = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V26,
  'io.modelcontextprotocol/clientInfo': { name: 'connector-tools-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

/** A call; a confirmed tool's goes as 2026-07-28 and, when asked, is confirmed by the user at once. */
async function rpc(method: string, params: any, headers: Record<string, string> = {}) {
  if (method !== 'tools/call' || !CONFIRMED.has(params?.name)) return legacy(method, params, headers);
  const send = (extra: Record<string, unknown>) =>
    e.request(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: ++id, method, params: { ...params, ...extra, _meta: META } },
      { ...KEY, ...headers, 'mcp-protocol-version': V26, 'mcp-method': method, 'mcp-name': params.name },
    );
  const first = await send({});
  if (first.body?.result?.resultType !== 'input_required') return first;
  return send({
    inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    requestState: first.body.result.requestState,
  });
}

beforeAll(async () => {
  e = await startTestEngine();
});
afterAll(async () => {
  await e?.close();
});

describe('connector tools through the gateway', () => {
  it('lists them with the input schemas of their routes', async () => {
    const r = await rpc('tools/list', {});
    const tools = Object.fromEntries(r.body.result.tools.map((t: any) => [t.name, t]));
    for (const name of ['lookupBankDirectory', 'initiatePaymentOrder', 'screenCustomer'])
      expect(tools[name]).toBeDefined();
    expect(tools.lookupBankDirectory.inputSchema.properties.identificationType).toBeDefined();
    expect(tools.initiatePaymentOrder.inputSchema.properties.transferTransactionInformation).toBeDefined();
  });

  it('a public tool needs the key only: bank directory lookup by BIC', async () => {
    const r = await rpc('tools/call', {
      name: 'lookupBankDirectory',
      arguments: { identificationType: 'BIC', identification: 'DEUTDEFFXXX' },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBeFalsy();
    expect(JSON.stringify(r.body.result.structuredContent)).toContain('DEUTDEFF');
  });

  it('a payment needs a bearer token; with one it is initiated at the hub', async () => {
    const order = sepaFrom('alice', 'E2E-TOOL');
    const anonymous = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order });
    expect(anonymous.status).toBe(401);
    const before = e.sandbox.hubvendor.state.paymentOrdersCreated;
    const token = await signSandboxToken({ sub: 'alice' });
    const r = await rpc(
      'tools/call',
      { name: 'initiatePaymentOrder', arguments: order },
      { authorization: `Bearer ${token}` },
    );
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBeFalsy();
    expect(r.body.result.structuredContent.bankReferenceId).toMatch(/^PO/);
    expect(e.sandbox.hubvendor.state.paymentOrdersCreated).toBe(before + 1);
  });

  it("modify and cancel a payment: the reference argument is the route's path parameter", async () => {
    const token = await signSandboxToken({ sub: 'alice' });
    const auth = { authorization: `Bearer ${token}` };
    const list = await rpc('tools/list', {}, auth);
    const tools = Object.fromEntries(list.body.result.tools.map((t: any) => [t.name, t]));
    // the served schemas: the body schema plus the path parameter as a required string
    expect(tools.modifyPaymentOrder.inputSchema.required).toContain('externalReferenceNo');
    expect(tools.modifyPaymentOrder.inputSchema.properties.externalReferenceNo).toMatchObject({ type: 'string' });
    expect(tools.modifyPaymentOrder.inputSchema.properties.requestedExecutionDate).toBeDefined();
    expect(tools.cancelPayment.inputSchema.required).toEqual(['externalReferenceNo']);
    expect(tools.cancelPayment.inputSchema.properties.cancellationType.enum).toEqual(['SINGLE', 'COMPLETE_SCHEDULE']);

    const order = sepaFrom('alice', 'E2E-MC');
    const created = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order }, auth);
    const ref = created.body.result.structuredContent.bankReferenceId as string;
    const hub = e.sandbox.hubvendor;

    // without a token: 401 before any route runs
    hub.server.clearRequests();
    expect((await rpc('tools/call', { name: 'cancelPayment', arguments: { externalReferenceNo: ref } })).status).toBe(
      401,
    );
    // the reference missing or not a string: a validation problem naming the argument, no vendor call
    const missing = await rpc(
      'tools/call',
      { name: 'modifyPaymentOrder', arguments: { requestedExecutionDate: '2030-02-01' } },
      auth,
    );
    expect(missing.body.result.isError).toBe(true);
    expect(missing.body.result.content[0].text).toContain('/externalReferenceNo is required');
    const wrongType = await rpc('tools/call', { name: 'cancelPayment', arguments: { externalReferenceNo: 42 } }, auth);
    expect(JSON.parse(wrongType.body.result.content[0].text)).toMatchObject({
      status: 400,
      code: 'GC025',
      errors: [{ field: '/externalReferenceNo', message: 'must be a non-empty string' }],
    });
    expect(hub.server.requests()).toHaveLength(0);

    const modified = await rpc(
      'tools/call',
      { name: 'modifyPaymentOrder', arguments: { externalReferenceNo: ref, requestedExecutionDate: '2030-02-01' } },
      auth,
    );
    expect(modified.body.result.isError).toBe(false);
    expect(modified.body.result.structuredContent).toMatchObject({
      bankReferenceId: ref,
      requestedExecutionDate: '2030-02-01',
    });
    const [put] = hub.server.requests();
    expect(put.path).toBe(`/v1/order/paymentOrders/${ref}`);
    // only the changed field went to the hub: the reference is not part of the body
    expect(put.body).toEqual({ header: {}, body: { executionDate: '2030-02-01' } });

    const cancelled = await rpc('tools/call', { name: 'cancelPayment', arguments: { externalReferenceNo: ref } }, auth);
    expect(cancelled.body.result.structuredContent).toMatchObject({
      bankReferenceId: ref,
      bankStatus: 'CANCELLED',
      paymentMode: 'SINGLE',
    });
    expect(hub.state.paymentOrders.get(ref)?.status).toBe('CANCELLED');
    // cancelling again: the hub's conflict comes back as the tool's error
    const again = await rpc(
      'tools/call',
      { name: 'cancelPayment', arguments: { externalReferenceNo: ref, cancellationType: 'SINGLE' } },
      auth,
    );
    expect(again.body.result.isError).toBe(true);
    expect(JSON.parse(again.body.result.content[0].text)).toMatchObject({ status: 409, code: 'GC003' });
  });

  it("a user only ever reaches their own payments: another user's reference is not found", async () => {
    const alice = { authorization: `Bearer ${await signSandboxToken({ sub: 'alice' })}` };
    const mallory = { authorization: `Bearer ${await signSandboxToken({ sub: 'mallory' })}` };
    const order = sepaFrom('alice', 'E2E-OWN', '10.00');
    const hub = e.sandbox.hubvendor;
    hub.server.clearRequests();
    const created = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order }, alice);
    const ref = created.body.result.structuredContent.bankReferenceId as string;
    // the hub learns the user (never the token) with the order
    const [post] = hub.server.requests();
    expect(post.headers['x-user-id']).toBe('alice');
    expect(post.headers.authorization).toBeUndefined();

    for (const [name, args] of [
      ['modifyPaymentOrder', { externalReferenceNo: ref, requestedExecutionDate: '2030-03-01' }],
      ['cancelPayment', { externalReferenceNo: ref }],
    ] as const) {
      const r = await rpc('tools/call', { name, arguments: args }, mallory);
      expect(r.body.result.isError).toBe(true);
      const problem = JSON.parse(r.body.result.content[0].text);
      expect(problem.status).toBe(404);
      expect(JSON.stringify(problem)).not.toContain('E2E-OWN');
    }
    expect(hub.state.paymentOrders.get(ref)).toMatchObject({ status: 'ACCEPTED', executionDate: '2030-01-15' });
    // nor can anyone pay from an account that is not theirs
    const before = hub.state.paymentOrdersCreated;
    const theft = await rpc(
      'tools/call',
      {
        name: 'initiatePaymentOrder',
        arguments: {
          ...order,
          transferTransactionInformation: {
            ...order.transferTransactionInformation,
            endToEndIdentification: `E2E-THEFT-${Date.now()}`,
          },
        },
      },
      mallory,
    );
    expect(theft.body.result.isError).toBe(true);
    expect(JSON.parse(theft.body.result.content[0].text)).toMatchObject({
      status: 400,
      code: 'GC025',
      errors: [{ field: '/originatorAccount/identification/identification' }],
    });
    expect(hub.state.paymentOrdersCreated).toBe(before);
    // replaying alice's very request (her account, her reference) gives mallory nothing of hers
    const replay = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: order }, mallory);
    expect(replay.body.result.isError).toBe(true);
    expect(JSON.parse(replay.body.result.content[0].text)).toMatchObject({
      status: 400,
      errors: [{ field: '/originatorAccount/identification/identification' }],
    });
    expect(replay.body.result.content[0].text).not.toContain(ref);
    // her reference on mallory's own order neither collides with alice's nor names it
    const mine = { ...order, originatorAccount: { name: 'mallory account holder', identification: own('mallory') } };
    const reused = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: mine }, mallory);
    expect(reused.body.result.isError).toBe(false);
    expect(reused.body.result.structuredContent.bankReferenceId).not.toBe(ref);
    expect(hub.state.paymentOrders.get(reused.body.result.structuredContent.bankReferenceId)).toMatchObject({
      ownerUserId: 'mallory',
    });
    // the owner can, and so can the bank's own HTTP API (no user: the hub checks its Authorization)
    expect(
      (
        await rpc(
          'tools/call',
          { name: 'modifyPaymentOrder', arguments: { externalReferenceNo: ref, requestedExecutionDate: '2030-03-01' } },
          alice,
        )
      ).body.result.isError,
    ).toBe(false);
    const direct = await e.request('POST', `/payments/${ref}/cancel`, undefined, {
      authorization: 'Bearer bank-channel',
    });
    expect(direct.status).toBe(200);
    expect(hub.server.requests().at(-1)!.headers['x-user-id']).toBeUndefined();
  });

  it("standing orders too: created from the user's own account, cancelled only by that user", async () => {
    const alice = { authorization: `Bearer ${await signSandboxToken({ sub: 'alice' })}` };
    const mallory = { authorization: `Bearer ${await signSandboxToken({ sub: 'mallory' })}` };
    const start = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const { requestedExecutionDate, ...single } = sepaFrom('alice', 'E2E-SO', '25.00');
    void requestedExecutionDate;
    const recurring = {
      ...single,
      paymentMode: 'RECURRING',
      schedule: { transferFrequency: 'MONTHLY', every: 1, startDate: start },
    };
    // from someone else's account: refused, nothing created
    const soBefore = e.sandbox.hubvendor.state.standingOrdersCreated;
    const foreign = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: recurring }, mallory);
    expect(JSON.parse(foreign.body.result.content[0].text)).toMatchObject({
      status: 400,
      errors: [{ field: '/originatorAccount/identification/identification' }],
    });
    expect(e.sandbox.hubvendor.state.standingOrdersCreated).toBe(soBefore);
    const created = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: recurring }, alice);
    expect(created.body.result.isError).toBe(false);
    const ref = created.body.result.structuredContent.bankReferenceId as string;
    // alice's very request replayed by mallory: not alice's order
    const replay = await rpc('tools/call', { name: 'initiatePaymentOrder', arguments: recurring }, mallory);
    expect(replay.body.result.isError).toBe(true);
    expect(replay.body.result.content[0].text).not.toContain(ref);
    const stolen = await rpc(
      'tools/call',
      { name: 'cancelPayment', arguments: { externalReferenceNo: ref, cancellationType: 'COMPLETE_SCHEDULE' } },
      mallory,
    );
    expect(JSON.parse(stolen.body.result.content[0].text).status).toBe(404);
    expect(e.sandbox.hubvendor.state.standingOrders.get(ref)?.status).toBe('ACTIVE');
    const mine = await rpc(
      'tools/call',
      { name: 'cancelPayment', arguments: { externalReferenceNo: ref, cancellationType: 'COMPLETE_SCHEDULE' } },
      alice,
    );
    expect(mine.body.result.structuredContent).toMatchObject({
      bankReferenceId: ref,
      bankStatus: 'CANCELLED',
      paymentMode: 'RECURRING',
    });
  });

  it('a failing tool answers isError with the platform error, not a protocol error', async () => {
    const token = await signSandboxToken({ sub: 'alice' });
    const r = await rpc(
      'tools/call',
      { name: 'screenCustomer', arguments: { customerReference: 'C-1', company: { name: 'ACME Ltd' } } },
      { authorization: `Bearer ${token}` },
    );
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(JSON.stringify(r.body.result)).toMatch(/GC025|KYB/);
  });
});
