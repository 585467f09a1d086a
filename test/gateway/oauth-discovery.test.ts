// Discoverable auth over real HTTP: RFC 9728 protected resource metadata for /mcp, the Bearer
// challenge of every 401 (RFC 9728 §5.1, RFC 6750 §3.1), the sandbox authorization server
// (RFC 8414 metadata, client_credentials), audience binding to the resource, and an agent that
// starts with no token and finds its way to a tool call.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../../sandbox/idp/index.ts';
import { bearer, KEY, startGateway, type GatewayTestEngine } from './helpers.ts';

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

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
const BALANCE = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getMyAccountBalance', arguments: {} } };

/** The auth-params of a Bearer challenge (RFC 9110 §11.2 quoted strings). */
function challenge(value: string | null): Record<string, string> {
  expect(value).toMatch(/^Bearer /);
  const out: Record<string, string> = {};
  for (const m of value!.slice(7).matchAll(/([a-z_]+)="([^"]*)"/g)) out[m[1]] = m[2];
  return out;
}

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the path-suffixed and the root well-known URI, without a key', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await e.request('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type')).toContain('application/json');
      // derived from the request's Host: not for shared caches
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body).toEqual({
        resource: `${e.url}/mcp`,
        authorization_servers: [e.idp.url],
        bearer_methods_supported: ['header'],
        resource_name: 'bank-integration-platform',
      });
    }
  });

  it('takes X-Forwarded-Proto and X-Forwarded-Host only from a trusted proxy', async () => {
    const fwd = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
    const direct = await e.request('GET', '/.well-known/oauth-protected-resource/mcp', undefined, fwd);
    expect(direct.body.resource).toBe(`${e.url}/mcp`);
    const g = await startGateway({ 'gateway.trustedProxies': '127.0.0.1' });
    try {
      const proxied = await g.request('GET', '/.well-known/oauth-protected-resource/mcp', undefined, {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.bank.example',
      });
      expect(proxied.body.resource).toBe('https://api.bank.example/mcp');
    } finally {
      await g.close();
    }
  });

  it('a configured resource, issuer and scopes are what it says; 401s name them', async () => {
    const g = await startGateway({
      'gateway.oauth.resource': 'https://api.bank.example/mcp',
      'gateway.oauth.authorizationServers': 'https://login.bank.example',
      'gateway.oauth.scopes': 'accounts:read,payments:write',
    });
    try {
      const r = await g.request('GET', '/.well-known/oauth-protected-resource/mcp', undefined, {
        'x-forwarded-host': 'evil.example',
      });
      expect(r.body).toEqual({
        resource: 'https://api.bank.example/mcp',
        authorization_servers: ['https://login.bank.example'],
        bearer_methods_supported: ['header'],
        scopes_supported: ['accounts:read', 'payments:write'],
        resource_name: 'bank-integration-platform',
      });
      expect(r.headers.get('cache-control')).toBe('public, max-age=300');
      const denied = await g.mcp(BALANCE);
      expect(denied.status).toBe(401);
      expect(challenge(denied.headers.get('www-authenticate'))).toEqual({
        resource_metadata: 'https://api.bank.example/.well-known/oauth-protected-resource/mcp',
        scope: 'accounts:read payments:write',
      });
    } finally {
      await g.close();
    }
  });

  it('a resource that is not an absolute URL without fragment is refused at start', async () => {
    await expect(startGateway({ 'gateway.oauth.resource': 'api.bank.example/mcp' })).rejects.toThrow(/oauth.resource/);
    await expect(startGateway({ 'gateway.oauth.resource': 'https://api.bank.example/mcp#x' })).rejects.toThrow(
      /oauth.resource/,
    );
  });
});

describe('WWW-Authenticate on every 401 from /mcp', () => {
  const metadataUrl = () => `${e.url}/.well-known/oauth-protected-resource/mcp`;

  it('no token for a bearer tool: resource_metadata and no error (no credentials were sent)', async () => {
    const r = await e.mcp(BALANCE);
    expect(r.status).toBe(401);
    expect(challenge(r.headers.get('www-authenticate'))).toEqual({ resource_metadata: metadataUrl() });
  });

  it('a refused token: error="invalid_token" with a description', async () => {
    const r = await e.mcp(BALANCE, bearer(await e.idp.sign({ sub: 'alice', audience: 'someone-else' })));
    expect(r.status).toBe(401);
    expect(challenge(r.headers.get('www-authenticate'))).toEqual({
      resource_metadata: metadataUrl(),
      error: 'invalid_token',
      error_description: expect.stringContaining('audience'),
    });
  });

  it('credentials that are no bearer token: error="invalid_request"', async () => {
    const r = await e.mcp(BALANCE, { authorization: 'Basic YWxpY2U6c2VjcmV0' });
    expect(r.status).toBe(401);
    expect(challenge(r.headers.get('www-authenticate'))).toMatchObject({
      resource_metadata: metadataUrl(),
      error: 'invalid_request',
    });
  });

  it('a missing or unknown subscription key, and requireToken, carry the challenge too', async () => {
    const missing = await e.request('POST', '/mcp', BALANCE);
    expect(missing.status).toBe(401);
    expect(challenge(missing.headers.get('www-authenticate'))).toEqual({ resource_metadata: metadataUrl() });
    const unknown = await e.mcp(BALANCE, { 'ocp-gateway-subscription-key': 'nope' });
    expect(challenge(unknown.headers.get('www-authenticate'))).toEqual({ resource_metadata: metadataUrl() });
    const g = await startGateway({ 'gateway.requireToken': 'true' });
    try {
      const r = await g.rpc('tools/list');
      expect(r.status).toBe(401);
      expect(challenge(r.headers.get('www-authenticate'))).toEqual({
        resource_metadata: `${g.url}/.well-known/oauth-protected-resource/mcp`,
      });
    } finally {
      await g.close();
    }
  });
});

describe('the sandbox authorization server', () => {
  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${e.idp.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });

  it('publishes RFC 8414 metadata whose issuer is the URL it is reached at', async () => {
    const r = await fetch(`${e.idp.url}/.well-known/oauth-authorization-server`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      issuer: e.idp.url,
      token_endpoint: `${e.idp.url}/token`,
      grant_types_supported: ['client_credentials'],
    });
  });

  it('client_credentials: wrong secret 401 invalid_client, wrong grant 400, bad resource 400 invalid_target', async () => {
    const bad = await token({ grant_type: 'client_credentials', client_id: SANDBOX_CLIENT_ID, client_secret: 'wrong' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    const grant = await token({
      grant_type: 'password',
      client_id: SANDBOX_CLIENT_ID,
      client_secret: SANDBOX_CLIENT_SECRET,
    });
    expect(grant.status).toBe(400);
    expect(await grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const target = await token(
      { grant_type: 'client_credentials', resource: 'not a uri' },
      { authorization: `Basic ${Buffer.from(`${SANDBOX_CLIENT_ID}:${SANDBOX_CLIENT_SECRET}`).toString('base64')}` },
    );
    expect(target.status).toBe(400);
    expect(await target.json()).toMatchObject({ error: 'invalid_target' });
  });
});

describe('audience bound to the resource', () => {
  it('with oauth.resource and no jwt.audience, only tokens issued for that resource pass', async () => {
    const g = await startGateway({
      'gateway.oauth.resource': 'https://api.bank.example/mcp',
      'gateway.jwt.audience': '',
    });
    try {
      const other = await g.mcp(BALANCE, bearer(await g.idp.sign({ sub: 'alice' })));
      expect(other.status).toBe(401);
      expect(challenge(other.headers.get('www-authenticate')).error).toBe('invalid_token');
      const ok = await g.mcp(
        BALANCE,
        bearer(await g.idp.sign({ sub: 'alice', audience: 'https://api.bank.example/mcp' })),
      );
      expect(ok.status).toBe(200);
      expect(ok.body.result.isError).toBe(false);
    } finally {
      await g.close();
    }
  });
});

describe('an agent that starts with no token', () => {
  it('follows WWW-Authenticate to the metadata, the authorization server and its token endpoint, then calls the tool', async () => {
    const mcpUrl = `${e.url}/mcp`;
    const call = (auth?: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'Ocp-Gateway-Subscription-Key': KEY,
          'mcp-protocol-version': V,
          'mcp-method': 'tools/call',
          'mcp-name': 'getMyAccountBalance',
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'getMyAccountBalance', arguments: {}, _meta: META },
        }),
      });

    // 1. no token: 401 naming the resource metadata
    const first = await call();
    expect(first.status).toBe(401);
    const { resource_metadata } = challenge(first.headers.get('www-authenticate'));
    // 2. the protected resource metadata; its resource must be the server the agent called (RFC 9728 §3.3)
    const prm = (await (await fetch(resource_metadata)).json()) as any;
    expect(prm.resource).toBe(mcpUrl);
    // 3. the authorization server metadata, tried as basic/authorization/authorization-server-discovery says
    const issuer: string = prm.authorization_servers[0];
    let as: any;
    for (const u of [
      `${issuer}/.well-known/oauth-authorization-server`,
      `${issuer}/.well-known/openid-configuration`,
    ]) {
      const r = await fetch(u);
      if (!r.ok) continue;
      as = await r.json();
      break;
    }
    // "the issuer value in the document MUST be identical to the issuer identifier used to
    // construct the well-known URL"
    expect(as.issuer).toBe(issuer);
    expect(as.grant_types_supported).toContain('client_credentials');
    // 4. a token for this resource (RFC 8707 resource parameter), without a browser
    const t = await fetch(as.token_endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${SANDBOX_CLIENT_ID}:${SANDBOX_CLIENT_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: prm.resource }),
    });
    expect(t.status).toBe(200);
    const { access_token, token_type } = (await t.json()) as any;
    expect(token_type).toBe('Bearer');
    // 5. the tool call with the token
    const second = await call(`Bearer ${access_token}`);
    expect(second.status).toBe(200);
    const body = (await second.json()) as any;
    expect(body.result).toMatchObject({
      resultType: 'complete',
      isError: false,
      structuredContent: { userId: SANDBOX_CLIENT_ID },
    });
  });
});
