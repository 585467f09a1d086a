// Protocol errors the gateway answers outside its refusals (an unsupported protocol version, 415,
// 406, a broken header, a body that is no JSON or no JSON-RPC request) are audit records too,
// naming the check; gateway.audit.enabled: false leaves an environment without a trail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { gatewayExtension, type GatewayExtension } from '../../engine/gateway/index.ts';
import { NO_AUDIT, type AuditEntry } from '../../engine/gateway/audit-hook.ts';

const KEY = { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key' };
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

let e: TestEngine;
const audited: AuditEntry[] = [];

beforeAll(async () => {
  e = await startTestEngine({ extensions: [gatewayExtension({ audit: { record: (x) => audited.push(x) } })] });
});
afterAll(async () => {
  await e?.close();
});

describe('protocol errors in the audit trail', () => {
  const cases: [string, number, string | object, Record<string, string>][] = [
    ['unsupported_version', 400, LIST, { 'mcp-protocol-version': '1999-01-01' }],
    ['unsupported_media_type', 415, LIST, { 'content-type': 'text/plain' }],
    ['not_acceptable', 406, LIST, { accept: 'text/html' }],
    ['header_mismatch', 400, LIST, { 'mcp-protocol-version': '2026-07-28' }],
    ['parse_error', 400, '{"jsonrpc":', {}],
    ['invalid_request', 400, [LIST], {}],
  ];
  for (const [check, status, body, headers] of cases) {
    it(`${check}: ${status}, recorded with the key's id and the correlation id`, async () => {
      audited.length = 0;
      const cid = `protocol-audit-${check}`;
      const r = await e.request('POST', '/mcp', body, {
        'content-type': 'application/json',
        ...KEY,
        'x-correlation-id': cid,
        ...headers,
      });
      expect(r.status).toBe(status);
      expect(audited).toHaveLength(1);
      expect(audited[0]).toMatchObject({
        kind: 'refusal',
        check,
        outcome: 'refused',
        detail: String(status),
        correlationId: cid,
      });
      expect(audited[0].keyId).toMatch(/^[0-9a-f]{12}$/);
    });
  }
});

describe('gateway.audit.enabled', () => {
  it('false: the environment has no trail', async () => {
    const gw: GatewayExtension = gatewayExtension();
    const off = await startTestEngine({ extensions: [gw], set: { 'gateway.audit.enabled': 'false' } });
    try {
      expect((gw.running!.gateway as unknown as { audit: unknown }).audit).toBe(NO_AUDIT);
    } finally {
      await off.close();
    }
  });
});
