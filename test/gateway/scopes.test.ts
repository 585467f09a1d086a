// Per-tool scopes: a tool declaring `scopes` is called only with a token carrying them (else 403
// insufficient_scope, RFC 6750 §3.1), listed only to such tokens, named in the protected resource
// metadata; a tool outside the subscription answers exactly as a tool that does not exist.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FX_ONLY_KEY, startGateway, type GatewayTestEngine } from './helpers.ts';

const run = promisify(execFile);
let e: GatewayTestEngine;

beforeAll(async () => {
  // a copy of the gateway's tools where getMyAccountBalance needs accounts:read, approved in a values copy
  const dir = mkdtempSync(join(tmpdir(), 'gw-scopes-'));
  const gateway = join(dir, 'gateway');
  cpSync('routes/gateway', gateway, { recursive: true });
  const file = join(gateway, 'user-tools.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(
      /(  - name: getMyAccountBalance\n(?:    .*\n)*?    security: bearer\n)/,
      '$1    scopes: [accounts:read]\n',
    ),
  );
  expect(readFileSync(file, 'utf8')).toContain('scopes: [accounts:read]');
  const values = join(dir, 'values');
  cpSync('values', values, { recursive: true });
  const routes = [gateway, 'routes/platform-backend', 'routes/hubvendor-foreign-exchange'];
  await run(
    process.execPath,
    [
      'bin/engine.js',
      'tools',
      'approve',
      'getMyAccountBalance',
      '--env',
      'sandbox',
      '--values',
      values,
      '--routes',
      routes.join(','),
      // this test's own copy of the approvals, not the project's: no audit record (the embedded
      // store may be held by another test's engine at the same time)
      '--unaudited',
    ],
    { timeout: 60_000 },
  );
  e = await startGateway({ 'gateway.rateLimits.anonymous': '1000' }, { routes, valuesDir: values });
});
afterAll(async () => {
  await e?.close();
});

const names = (r: { body: any }) => r.body.result.tools.map((t: any) => t.name) as string[];
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

describe('per-tool scopes', () => {
  it('a token without the scope: 403 insufficient_scope naming it; with it: the tool runs', async () => {
    const without = await e.token('alice');
    const r = await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, auth(without));
    expect(r.status).toBe(403);
    const www = r.headers.get('www-authenticate')!;
    expect(www).toMatch(/^Bearer /);
    expect(www).toContain('error="insufficient_scope"');
    expect(www).toContain('scope="accounts:read"');
    expect(www).toContain('resource_metadata="');
    // another scope is not enough either
    const other = await e.idp.sign({ sub: 'alice', claims: { scope: 'payments:write' } });
    expect((await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, auth(other))).status).toBe(403);

    const withScope = await e.idp.sign({ sub: 'alice', claims: { scope: 'openid accounts:read' } });
    const ok = await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, auth(withScope));
    expect(ok.status).toBe(200);
    expect(ok.body.result.isError).toBe(false);
    // an `scp` array serves as well
    const scp = await e.idp.sign({ sub: 'alice', claims: { scp: ['accounts:read'] } });
    expect((await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, auth(scp))).status).toBe(200);
  });

  it('tools/list shows the scoped tool only to a token carrying its scopes', async () => {
    const anonymous = await e.rpc('tools/list');
    expect(names(anonymous)).not.toContain('getMyAccountBalance');
    expect(names(anonymous)).toContain('getMyTransactionHistory');
    const without = await e.rpc('tools/list', {}, auth(await e.token('alice')));
    expect(names(without)).not.toContain('getMyAccountBalance');
    const withScope = await e.idp.sign({ sub: 'alice', claims: { scope: 'accounts:read' } });
    const listed = await e.rpc('tools/list', {}, auth(withScope));
    expect(names(listed)).toContain('getMyAccountBalance');
    const tool = listed.body.result.tools.find((t: any) => t.name === 'getMyAccountBalance');
    expect(tool._meta['platform/scopes']).toEqual(['accounts:read']);
  });

  it('the protected resource metadata lists the scopes', async () => {
    const r = await e.request('GET', '/.well-known/oauth-protected-resource/mcp');
    expect(r.status).toBe(200);
    expect(r.body.scopes_supported).toContain('accounts:read');
  });

  it('a tool outside the subscription answers exactly as an unknown tool', async () => {
    const headers = { 'ocp-gateway-subscription-key': FX_ONLY_KEY };
    const hidden = await e.mcp(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'getMyTransactionHistory', arguments: {} } },
      headers,
    );
    const unknown = await e.mcp(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'noSuchToolAtAll', arguments: {} } },
      headers,
    );
    expect(hidden.status).toBe(unknown.status);
    expect(hidden.body.error.code).toBe(unknown.body.error.code);
    expect(hidden.body.error.message.replace('getMyTransactionHistory', 'X')).toBe(
      unknown.body.error.message.replace('noSuchToolAtAll', 'X'),
    );
    const fxList = await e.mcp({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, headers);
    expect(names(fxList)).not.toContain('getMyTransactionHistory');
  });
});
