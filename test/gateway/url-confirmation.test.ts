// An agent written against the official MCP SDK (2025-11-25) confirms a payment: its client declares
// URL mode elicitation, the payment tool answers -32042 naming the gateway's confirmation page, the
// person (the same user's token) confirms there over HTTP, and the retried call makes the payment
// once. Refused and expired confirmations, another user at the page, and a client without URL
// elicitation (the documented tool error) are checked too, with their audit records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { paymentOrder } from './helpers.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { ibansOfUser } from '../../sandbox/platform-backend/index.ts';
import type { AuditEntry } from '../../engine/gateway/audit-hook.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';

const KEY = 'sandbox-demo-subscription-key';
const TTL_SECONDS = 2;

const order = (prefix: string, amount = '125.50') => paymentOrder(prefix, amount, '2030-02-01');

let e: TestEngine;
let alice: string;
const audited: AuditEntry[] = [];
/** payments this test asked the hub for (the sandbox's own demo payments, every 20 s, are not counted) */
const created = () =>
  e.sandbox.hubvendor.server
    .requests()
    .filter((q) => q.method === 'POST' && JSON.stringify(q.body ?? '').includes('"URL-')).length;

beforeAll(async () => {
  e = await startTestEngine({
    extensions: [gatewayExtension({ audit: { record: (x) => audited.push(x) } })],
    set: { 'gateway.confirmation.ttlSeconds': String(TTL_SECONDS) },
  });
  alice = await signSandboxToken({ sub: 'alice' });
});
afterAll(async () => {
  await e?.close();
});

/** An SDK client of alice; `url`: it declares URL mode elicitation at initialize. */
async function agent(url = true): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${e.url}/mcp`), {
    requestInit: { headers: { 'Ocp-Gateway-Subscription-Key': KEY, Authorization: `Bearer ${alice}` } },
  });
  const client = new Client(
    { name: 'url-confirm-agent', version: '1.0.0' },
    { capabilities: url ? { elicitation: { url: {} } } : {} },
  );
  await client.connect(transport);
  return client;
}

/** The -32042 of a call: its one URL elicitation. */
async function elicitation(client: Client, args: Record<string, unknown>) {
  const err = await client.callTool({ name: 'initiatePaymentOrder', arguments: args }).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(err).toBeInstanceOf(UrlElicitationRequiredError);
  expect((err as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
  const list = (err as UrlElicitationRequiredError).elicitations;
  expect(list).toHaveLength(1);
  expect(list[0].mode).toBe('url');
  return list[0] as { url: string; elicitationId: string; message: string };
}

/** The page, as the person's browser script reads and answers it. */
const page = (url: string, token: string | undefined, init: RequestInit = {}) =>
  fetch(url, {
    ...init,
    headers: {
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
const decide = (url: string, token: string, decision: string) =>
  page(url, token, { method: 'POST', body: JSON.stringify({ decision }) });

describe('confirmation of a 2025-11-25 agent through the gateway page (URL elicitation)', () => {
  it('lists tools, is refused without confirmation, confirms on the page, sees the payment made once', async () => {
    const client = await agent();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('initiatePaymentOrder');
      const args = order('URL-ONCE');
      const before = created();

      const ask = await elicitation(client, args);
      expect(ask.url).toBe(`${e.url}/mcp/confirmations/${ask.elicitationId}`);
      // the URL names nothing of the user or the payment; the message shows the payment masked
      expect(ask.url).not.toMatch(/alice|125|DE/);
      expect(ask.message).toContain('125.50 EUR');
      expect(ask.message).toContain('FR14****2606');
      expect(ask.message).not.toContain('FR1420041010050500013M02606');
      // the agent retries before the person answered: the same confirmation is still open, no payment
      expect((await elicitation(client, args)).elicitationId).toBe(ask.elicitationId);
      expect(created()).toBe(before);

      // the page: nothing without the user's token, an unknown one for another user
      expect((await page(ask.url, undefined)).status).toBe(401);
      expect((await page(ask.url, 'not.a.token')).status).toBe(401);
      const bob = await signSandboxToken({ sub: 'bob' });
      expect((await page(ask.url, bob)).status).toBe(404);
      expect((await decide(ask.url, bob, 'confirm')).status).toBe(404);
      const html = await fetch(ask.url);
      expect(html.status).toBe(200);
      expect(html.headers.get('content-type')).toContain('text/html');
      expect(html.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await html.text()).not.toContain('125.50');

      const shown = await page(ask.url, alice);
      expect(shown.status).toBe(200);
      const view = (await shown.json()) as { lines: string[]; state: string; tool: string };
      expect(view.state).toBe('pending');
      expect(view.tool).toBe('initiatePaymentOrder');
      const debtor = ibansOfUser('alice')[0];
      expect(view.lines).toEqual(
        expect.arrayContaining([
          'Amount: 125.50 EUR',
          `From account: ${debtor.slice(0, 4)}****${debtor.slice(-4)}`,
          'To: Jane Doe, FR14****2606',
          'Execution date: 2030-02-01',
        ]),
      );
      expect(JSON.stringify(view)).not.toContain(debtor);

      // a form post from another site cannot decide (no JSON, no token)
      expect(
        (
          await fetch(ask.url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${alice}` },
            body: 'decision=confirm',
          })
        ).status,
      ).toBe(415);
      expect((await decide(ask.url, alice, 'maybe')).status).toBe(400);
      const ok = await decide(ask.url, alice, 'confirm');
      expect(ok.status).toBe(200);
      expect((await decide(ask.url, alice, 'refuse')).status).toBe(409);

      const paid = await client.callTool({ name: 'initiatePaymentOrder', arguments: args });
      expect(paid.isError).toBe(false);
      expect((paid.structuredContent as { bankReferenceId: string }).bankReferenceId).toMatch(/^PO/);
      expect(created()).toBe(before + 1);

      // the confirmation allowed one call: the same call again is a new payment, asked anew
      const again = await elicitation(client, args);
      expect(again.elicitationId).not.toBe(ask.elicitationId);
      expect(created()).toBe(before + 1);
    } finally {
      await client.close();
    }
    const mine = audited.filter((a) => a.kind === 'confirmation' || a.kind === 'call');
    expect(mine.map((a) => `${a.kind}:${a.outcome}`)).toEqual([
      'confirmation:asked',
      'confirmation:given',
      'call:ok',
      'confirmation:asked',
    ]);
    expect(new Set(mine.map((a) => a.argsDigest)).size).toBe(1);
    expect(mine.every((a) => a.user === 'alice')).toBe(true);
    expect(JSON.stringify(audited)).not.toContain('FR1420041010050500013M02606');
  });

  it('refused on the page: the retried call is a tool error, nothing at the hub', async () => {
    audited.length = 0;
    const client = await agent();
    try {
      const args = order('URL-REFUSE');
      const before = created();
      const ask = await elicitation(client, args);
      expect((await decide(ask.url, alice, 'refuse')).status).toBe(200);
      const r = await client.callTool({ name: 'initiatePaymentOrder', arguments: args });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain('refused');
      expect(created()).toBe(before);
    } finally {
      await client.close();
    }
    expect(audited.filter((a) => a.kind === 'confirmation').map((a) => a.outcome)).toEqual(['asked', 'refused']);
  });

  it('expired: the page says so, the retried call is a tool error, nothing at the hub', async () => {
    audited.length = 0;
    const client = await agent();
    try {
      const args = order('URL-EXPIRE');
      const before = created();
      const ask = await elicitation(client, args);
      await new Promise((r) => setTimeout(r, TTL_SECONDS * 1000 + 300));
      expect((await decide(ask.url, alice, 'confirm')).status).toBe(410);
      const r = await client.callTool({ name: 'initiatePaymentOrder', arguments: args });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain('expired');
      expect(created()).toBe(before);
    } finally {
      await client.close();
    }
    expect(audited.filter((a) => a.kind === 'confirmation').map((a) => a.outcome)).toEqual([
      'asked',
      'expired',
      'expired',
    ]);
  });

  it('a client without URL elicitation gets the documented tool error saying how', async () => {
    const client = await agent(false);
    try {
      const before = created();
      const r = await client.callTool({ name: 'initiatePaymentOrder', arguments: order('URL-NONE') });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain('capabilities.elicitation.url');
      expect(created()).toBe(before);
    } finally {
      await client.close();
    }
  });
});
