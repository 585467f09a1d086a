// RFC 8725 hardening of bearer tokens over real HTTP: a required `typ` (at+jwt, RFC 9068), no
// `iat` in the future beyond the clock tolerance, a maximum lifetime (exp - iat; `iat` required
// then), and a `sub` the platform backend would refuse is a 401 at the gateway, never a backend
// call. Each refusal moves its own gateway_refusals_total{reason="invalid_token",detail} series,
// which exists at 0 from the start.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, importJWK, type CryptoKey } from 'jose';
import { bearer, startGateway, type GatewayTestEngine } from './helpers.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, SANDBOX_KID, SANDBOX_PRIVATE_JWK } from '../../sandbox/idp/sandbox-key.ts';
import { TokenError, TokenVerifier, USER_ID } from '../../engine/gateway/jwt.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { loadValues } from '../../engine/config/values.ts';
import { readSettings } from '../../engine/gateway/config.ts';

let e: GatewayTestEngine;
let key: CryptoKey;
let ip = 0;

beforeAll(async () => {
  e = await startGateway({
    'gateway.jwt.typ': 'at+jwt',
    'gateway.jwt.maxLifetimeSeconds': '3600',
    // each request its own client IP (127.0.0.1 is a trusted proxy): refused tokens keep the IP's unit
    'gateway.trustedProxies': '127.0.0.1',
    'gateway.rateLimits.subscriptionPublic': '100000',
  });
  key = (await importJWK({ ...SANDBOX_PRIVATE_JWK }, 'RS256')) as CryptoKey;
});
afterAll(async () => {
  await e?.close();
});

const now = () => Math.floor(Date.now() / 1000);

/** A token signed with the sandbox identity provider's key; `undefined` claims are left out. */
/** `typ` null: no typ header at all. */
function sign(over: Record<string, unknown> = {}, typ: string | null = 'at+jwt'): Promise<string> {
  const payload = Object.fromEntries(
    Object.entries({
      sub: 'alice',
      iss: SANDBOX_ISSUER,
      aud: SANDBOX_AUDIENCE,
      iat: now(),
      exp: now() + 600,
      ...over,
    }).filter(([, v]) => v !== undefined),
  );
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', kid: SANDBOX_KID, ...(typ === null ? {} : { typ }) })
    .sign(key);
}

const from = () => ({ 'x-forwarded-for': `198.51.100.${++ip}` });
const fx = (token: string) =>
  e.rpc(
    'tools/call',
    { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'GBP' } },
    { ...bearer(token), ...from() },
  );
const balance = (token: string) =>
  e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, { ...bearer(token), ...from() });

async function refusals(detail: string): Promise<number> {
  const text = await (await fetch(`${e.url}/metrics`)).text();
  const m = new RegExp(
    `^gateway_refusals_total\\{(?=[^}]*reason="invalid_token")(?=[^}]*detail="${detail}")[^}]*\\} (\\S+)$`,
    'm',
  ).exec(text);
  if (!m) throw new Error(`no series gateway_refusals_total{reason="invalid_token",detail="${detail}"}`);
  return Number(m[1]);
}

/** 401 invalid_token whose refusal is counted under `detail` (exactly once). */
// the call is started only after the counter is read: a request already in flight could be counted
// before it, and the counter would then read one short
async function expectRefused(
  call: () => Promise<{ status: number; headers: Headers; body: any }>,
  detail: string,
  message: RegExp,
) {
  const before = await refusals(detail);
  const r = await call();
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  expect(r.body.error).toBe('invalid_token');
  expect(JSON.stringify(r.body)).toMatch(message);
  expect(await refusals(detail)).toBe(before + 1);
}

describe('the refusal series of the new checks', () => {
  it('exist at 0 from the start', async () => {
    for (const d of ['type', 'issued_in_future', 'lifetime']) expect(await refusals(d), d).toBe(0);
  });
});

describe('typ (gateway.jwt.typ: at+jwt)', () => {
  it('at+jwt and application/at+jwt pass', async () => {
    expect((await fx(await sign({}, 'at+jwt'))).body.result.isError).toBe(false);
    expect((await fx(await sign({}, 'application/at+jwt'))).body.result.isError).toBe(false);
  });

  it('a plain JWT (typ JWT, an ID token for example) or no typ at all is refused', async () => {
    await expectRefused(async () => fx(await sign({}, 'JWT')), 'type', /typ/);
    await expectRefused(async () => fx(await sign({}, null)), 'type', /typ/);
  });
});

describe('iat', () => {
  it('within the clock tolerance (30 s) it passes', async () => {
    expect((await fx(await sign({ iat: now() + 10 }))).status).toBe(200);
  });

  it('in the future beyond the tolerance it is refused', async () => {
    await expectRefused(
      async () => fx(await sign({ iat: now() + 120, exp: now() + 600 })),
      'issued_in_future',
      /issued in the future/,
    );
  });
});

describe('maximum lifetime (gateway.jwt.maxLifetimeSeconds: 3600)', () => {
  it('exactly the maximum passes', async () => {
    expect((await fx(await sign({ iat: now(), exp: now() + 3600 }))).status).toBe(200);
  });

  it('longer is refused, also a token long past its iat that has little time left', async () => {
    await expectRefused(async () => fx(await sign({ iat: now(), exp: now() + 3601 })), 'lifetime', /3600 seconds/);
    await expectRefused(
      async () => fx(await sign({ iat: now() - 86_400 * 365, exp: now() + 60 })),
      'lifetime',
      /exp - iat/,
    );
  });

  it('a token without iat is refused: its lifetime is unknown', async () => {
    await expectRefused(async () => fx(await sign({ iat: undefined })), 'missing_claim', /'iat'/);
  });

  it('without a maximum, no iat and a long life pass (TokenVerifier with the same keys)', async () => {
    const { d, p, q, dp, dq, qi, ...pub } = SANDBOX_PRIVATE_JWK;
    void d;
    void p;
    void q;
    void dp;
    void dq;
    void qi;
    const { createPublicKey } = await import('node:crypto');
    const pem = createPublicKey({ key: { ...pub }, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const settings = {
      issuer: SANDBOX_ISSUER,
      audience: [SANDBOX_AUDIENCE],
      publicKeyPem: pem,
      algorithms: ['RS256'],
      clockToleranceSeconds: 30,
      jwksCooldownSeconds: 30,
      jwksMaxAgeSeconds: 600,
      tokenCacheSize: 10,
    };
    const open = new TokenVerifier(settings, createLogger('silent'));
    const long = await sign({ iat: undefined, exp: now() + 86_400 * 30 });
    expect((await open.verify(long)).sub).toBe('alice');
    const capped = new TokenVerifier({ ...settings, maxLifetimeSeconds: 86_400 }, createLogger('silent'));
    await expect(capped.verify(long)).rejects.toMatchObject({ check: 'missing_claim' });
    await expect(capped.verify(await sign({ exp: now() + 86_400 * 30 }))).rejects.toBeInstanceOf(TokenError);
  });
});

describe('the user id: the gateway accepts exactly what the platform backend accepts', () => {
  it('a sub with / + = or longer than 128 characters is 401 at the gateway and the backend is never called', async () => {
    for (const sub of [
      'team/alice',
      'alice+test@example.com',
      'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ=',
      'a'.repeat(129),
    ]) {
      e.platform.server.clearRequests();
      await expectRefused(async () => balance(await sign({ sub })), 'subject', /sub/);
      expect(e.platform.server.requests(), sub).toHaveLength(0);
    }
  });

  it('every kind of character the gateway accepts reaches the backend and is served (no 502 tool error)', async () => {
    for (const sub of [
      'auth0|5f7c8ec7c33c6c004bbafe82',
      'alice@example.com',
      'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
      'urn:user:x_y.z-0',
      ('Zz09._@|:-' + 'x'.repeat(128)).slice(0, 128),
    ]) {
      expect(USER_ID.test(sub), sub).toBe(true);
      const r = await balance(await sign({ sub }));
      expect(r.status, sub).toBe(200);
      expect(r.body.result.isError, `${sub}: ${JSON.stringify(r.body.result)}`).toBe(false);
    }
  });
});

describe('the settings (gateway.jwt.typ, gateway.jwt.maxLifetimeSeconds)', () => {
  const settings = (env: string, set: Record<string, string> = {}) => {
    const values = loadValues({ dir: 'values', env, processEnv: {}, lenient: true, set });
    values.keys.setSimulatorUrls(new Proxy({}, { get: (_t, name) => `http://127.0.0.1:9/${String(name)}` }));
    return readSettings(values).jwt;
  };

  it.each(['sandbox', 'development', 'staging', 'production'])(
    'shipped (%s): no typ required, at most a day of lifetime',
    (env) => {
      expect(settings(env)).toMatchObject({ typ: undefined, maxLifetimeSeconds: 86_400 });
    },
  );

  it('0 means no maximum; an environment can require a typ', () => {
    expect(
      settings('production', { 'gateway.jwt.maxLifetimeSeconds': '0', 'gateway.jwt.typ': 'application/at+jwt' }),
    ).toMatchObject({ typ: 'application/at+jwt', maxLifetimeSeconds: undefined });
  });

  it('bad values are refused at start, naming the setting', () => {
    expect(() => settings('sandbox', { 'gateway.jwt.typ': 'at jwt' })).toThrow(/jwt\.typ/);
    expect(() => settings('sandbox', { 'gateway.jwt.maxLifetimeSeconds': '-1' })).toThrow(/jwt\.maxLifetimeSeconds/);
    expect(() => settings('sandbox', { 'gateway.jwt.maxLifetimeSeconds': 'a day' })).toThrow(/jwt\.maxLifetimeSeconds/);
  });
});
