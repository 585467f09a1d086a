// Human confirmation of the money-moving tools (confirm: required): MCP 2026-07-28 input_required
// with a form elicitation, the confirmed retry runs the route once; replayed, changed, expired and
// declined confirmations are refused without a call at the hub; earlier revisions get a tool error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { paymentOrder } from './helpers.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { ibansOfUser } from '../../sandbox/platform-backend/index.ts';
import type { AuditEntry } from '../../engine/gateway/audit-hook.ts';
import pino from 'pino';
import { McpGateway } from '../../engine/gateway/mcp.ts';
import { gatewayExtension, type GatewayExtension } from '../../engine/gateway/index.ts';

const V = '2026-07-28';
const KEY = { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' };
const TTL_SECONDS = 3;

const order = (prefix: string, amount = '250.00') => paymentOrder(prefix, amount, '2030-01-15');

let e: TestEngine;
let gw: GatewayExtension;
let auth: Record<string, string>;
const audited: AuditEntry[] = [];
let id = 0;

/** A 2026-07-28 tools/call of `name` with elicitation declared (unless caps say otherwise). */
function call26(name: string, params: Record<string, unknown>, caps: Record<string, unknown> = { elicitation: {} }) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V,
    'io.modelcontextprotocol/clientInfo': { name: 'confirm-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': caps,
  };
  return e.request(
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, ...params, _meta: meta } },
    {
      ...KEY,
      ...auth,
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      accept: 'application/json',
    },
  );
}
/** every request the hub simulator received (cleared before each case) */
// the hub's requests of this test: the sandbox's demo traffic (a payment every 20 s, end-to-end
// reference DEMO-...) goes to the same hub
const hubCalls = () =>
  e.sandbox.hubvendor.server.requests().filter((q) => !JSON.stringify(q.body ?? '').includes('"DEMO-'));

beforeAll(async () => {
  gw = gatewayExtension();
  e = await startTestEngine({ extensions: [gw], set: { 'gateway.confirmation.ttlSeconds': String(TTL_SECONDS) } });
  auth = { authorization: `Bearer ${await signSandboxToken({ sub: 'alice' })}` };
});
afterAll(async () => {
  await e?.close();
});

/** The first call: input_required with the elicitation and the request state. */
async function ask(args: Record<string, unknown>, name = 'initiatePaymentOrder') {
  e.sandbox.hubvendor.server.clearRequests();
  const r = await call26(name, { arguments: args });
  expect(r.status).toBe(200);
  expect(r.body.result.resultType).toBe('input_required');
  expect(hubCalls()).toHaveLength(0);
  return r.body.result as { inputRequests: Record<string, any>; requestState: string };
}
const accept = { confirm: { action: 'accept', content: { confirm: true } } };

describe('confirmation under 2026-07-28 (input_required)', () => {
  it('the first call asks the user: amount, currency, masked accounts, execution date; no call at the hub', async () => {
    const args = order('CONF-ASK');
    const first = await ask(args);
    const req = first.inputRequests.confirm;
    expect(req.method).toBe('elicitation/create');
    expect(req.params.mode).toBe('form');
    const msg = req.params.message as string;
    expect(msg).toContain('250.00 EUR');
    expect(msg).toContain('Execution date: 2030-01-15');
    const debtor = ibansOfUser('alice')[0];
    expect(msg).toContain(`${debtor.slice(0, 4)}****${debtor.slice(-4)}`);
    expect(msg).toContain('FR14****2606');
    expect(msg).not.toContain(debtor);
    expect(msg).not.toContain('FR1420041010050500013M02606');
    expect(req.params.requestedSchema).toMatchObject({ type: 'object', required: ['confirm'] });
    expect(typeof first.requestState).toBe('string');
  });

  it('confirmed once: the payment is made once; the same confirmation again is a replay, refused', async () => {
    const args = order('CONF-ONCE');
    const first = await ask(args);
    const before = e.sandbox.hubvendor.state.paymentOrdersCreated;
    const ok = await call26('initiatePaymentOrder', {
      arguments: args,
      inputResponses: accept,
      requestState: first.requestState,
    });
    expect(ok.body.result.resultType).toBe('complete');
    expect(ok.body.result.isError).toBe(false);
    expect(ok.body.result.structuredContent.bankReferenceId).toMatch(/^PO/);
    expect(e.sandbox.hubvendor.state.paymentOrdersCreated).toBe(before + 1);
    // the hub saw the payment: what the refused cases below check is absent
    expect(hubCalls().some((q) => q.method === 'POST')).toBe(true);

    e.sandbox.hubvendor.server.clearRequests();
    const again = await call26('initiatePaymentOrder', {
      arguments: args,
      inputResponses: accept,
      requestState: first.requestState,
    });
    expect(again.body.result.isError).toBe(true);
    expect(again.body.result.structuredContent.detail).toContain('used already');
    expect(hubCalls()).toHaveLength(0);
    expect(e.sandbox.hubvendor.state.paymentOrdersCreated).toBe(before + 1);
  });

  it('changed amount: refused, nothing at the hub', async () => {
    const args = order('CONF-CHANGE');
    const first = await ask(args);
    const changed = structuredClone(args);
    changed.transferTransactionInformation.instructedAmount.amount = '9999.00';
    const r = await call26('initiatePaymentOrder', {
      arguments: changed,
      inputResponses: accept,
      requestState: first.requestState,
    });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.detail).toContain('differ from the ones the user confirmed');
    expect(hubCalls()).toHaveLength(0);
  });

  it('declined: refused, nothing at the hub; an answer missing: asked again', async () => {
    const args = order('CONF-DECLINE');
    const first = await ask(args);
    const missing = await call26('initiatePaymentOrder', { arguments: args, requestState: first.requestState });
    expect(missing.body.result.resultType).toBe('input_required');
    const r = await call26('initiatePaymentOrder', {
      arguments: args,
      inputResponses: { confirm: { action: 'decline' } },
      requestState: first.requestState,
    });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.detail).toContain('did not confirm (decline)');
    // accepted without the box ticked is no confirmation either
    const second = await ask(args);
    const unticked = await call26('initiatePaymentOrder', {
      arguments: args,
      inputResponses: { confirm: { action: 'accept', content: { confirm: false } } },
      requestState: second.requestState,
    });
    expect(unticked.body.result.isError).toBe(true);
    expect(hubCalls()).toHaveLength(0);
  });

  it('a tampered request state is a JSON-RPC error (-32602); nothing at the hub', async () => {
    const args = order('CONF-TAMPER');
    const first = await ask(args);
    const [payload, mac] = first.requestState.split('.');
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString());
    state.exp += 3600_000;
    const forged = `${Buffer.from(JSON.stringify(state)).toString('base64url')}.${mac}`;
    const r = await call26('initiatePaymentOrder', { arguments: args, inputResponses: accept, requestState: forged });
    expect(r.body.error).toMatchObject({ code: -32602 });
    expect(hubCalls()).toHaveLength(0);
  });

  it('another user cannot use the confirmation', async () => {
    const args = order('CONF-USER');
    const first = await ask(args);
    const mine = auth;
    auth = { authorization: `Bearer ${await signSandboxToken({ sub: 'bob' })}` };
    try {
      const r = await call26('initiatePaymentOrder', {
        arguments: args,
        inputResponses: accept,
        requestState: first.requestState,
      });
      expect(r.body.result.isError).toBe(true);
      expect(r.body.result.structuredContent.detail).toContain('another user');
    } finally {
      auth = mine;
    }
    expect(hubCalls()).toHaveLength(0);
  });

  it('expired: refused, nothing at the hub', async () => {
    const args = order('CONF-EXPIRED');
    const first = await ask(args);
    await new Promise((r) => setTimeout(r, TTL_SECONDS * 1000 + 300));
    const r = await call26('initiatePaymentOrder', {
      arguments: args,
      inputResponses: accept,
      requestState: first.requestState,
    });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.detail).toContain('expired');
    expect(hubCalls()).toHaveLength(0);
  });

  it('cancelPayment asks too, showing the payment reference', async () => {
    const first = await ask({ externalReferenceNo: 'PO-NOT-REAL-1' }, 'cancelPayment');
    expect(first.inputRequests.confirm.params.message).toContain('Payment: PO-NOT-REAL-1');
  });

  it('a 2026-07-28 client without the elicitation capability gets a tool error, no call', async () => {
    e.sandbox.hubvendor.server.clearRequests();
    const r = await call26('initiatePaymentOrder', { arguments: order('CONF-NOCAP') }, {});
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.detail).toContain('elicitation capability');
    expect(hubCalls()).toHaveLength(0);
  });
});

describe('confirmation before 2026-07-28', () => {
  it('2025-06-18 and no header (2025-03-26): a tool error saying how to confirm; never a call', async () => {
    e.sandbox.hubvendor.server.clearRequests();
    const before = e.sandbox.hubvendor.state.paymentOrdersCreated;
    for (const headers of [{ 'mcp-protocol-version': '2025-06-18' }, {}] as Record<string, string>[]) {
      const r = await e.request(
        'POST',
        '/mcp',
        {
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name: 'initiatePaymentOrder', arguments: order('CONF-OLD') },
        },
        { ...KEY, ...auth, ...headers },
      );
      expect(r.status).toBe(200);
      expect(r.body.result.isError).toBe(true);
      const text = JSON.parse(r.body.result.content[0].text);
      expect(text).toMatchObject({ title: 'Confirmation required', status: 403 });
      expect(text.detail).toContain('MCP-Protocol-Version: 2026-07-28');
    }
    expect(hubCalls()).toHaveLength(0);
    expect(e.sandbox.hubvendor.state.paymentOrdersCreated).toBe(before);
  });
});

describe('audit of confirmation decisions', () => {
  it('records asked, given, replayed, mismatched and refused with the argument digest; never the arguments', async () => {
    // the running gateway's settings, tools and verifier, with an audit hook and a route stand-in
    const r = gw.running!;
    const routeCalls: string[] = [];
    const g = new McpGateway({
      settings: r.settings,
      tools: r.served,
      verifier: r.verifier,
      limiter: r.limiter,
      call: async (route) => {
        routeCalls.push(route);
        return { status: 200, body: { bankReferenceId: 'PO123' }, headers: {} };
      },
      log: pino({ level: 'silent' }),
      audit: { record: (x) => audited.push(x) },
    });
    const send = async (params: Record<string, unknown>, caps: unknown = { elicitation: {} }) => {
      const out = await g.handle({
        headers: {
          ...KEY,
          ...auth,
          'content-type': 'application/json',
          'mcp-protocol-version': V,
          'mcp-method': 'tools/call',
          'mcp-name': 'initiatePaymentOrder',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: {
            name: 'initiatePaymentOrder',
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': V,
              'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': caps,
            },
          },
        }),
        remoteAddress: '127.0.0.1',
        correlationId: `c${id}`,
      });
      return JSON.parse(out.body!);
    };
    const args = order('CONF-AUDIT');
    const first = await send({ arguments: args });
    await send({ arguments: args, inputResponses: accept, requestState: first.result.requestState });
    await send({ arguments: args, inputResponses: accept, requestState: first.result.requestState });
    const changed = structuredClone(args);
    changed.transferTransactionInformation.instructedAmount.amount = '1.00';
    const second = await send({ arguments: args });
    await send({ arguments: changed, inputResponses: accept, requestState: second.result.requestState });
    const third = await send({ arguments: args });
    await send({
      arguments: args,
      inputResponses: { confirm: { action: 'cancel' } },
      requestState: third.result.requestState,
    });
    expect(routeCalls).toEqual(['initiate-payment-order']);
    // the trail also holds the call that ran (and any refusal): the confirmations among them
    expect(audited.filter((a) => a.kind === 'call').map((a) => a.outcome)).toEqual(['ok']);
    const confirmations = audited.filter((a) => a.kind === 'confirmation');
    expect(confirmations.map((a) => a.outcome)).toEqual([
      'asked',
      'given',
      'replayed',
      'asked',
      'mismatched',
      'asked',
      'refused',
    ]);
    for (const a of confirmations) {
      expect(a).toMatchObject({
        kind: 'confirmation',
        tool: 'initiatePaymentOrder',
        user: 'alice',
        subscription: expect.any(String),
      });
      expect(a.argsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
    expect(confirmations[4].argsDigest).not.toBe(confirmations[3].argsDigest);
    expect(JSON.stringify(audited)).not.toContain('FR1420041010050500013M02606');
  });
});
