// Bearer tokens at the gateway: every forged, stale or foreign token is a 401 with
// WWW-Authenticate: Bearer error="invalid_token"; keys from discovery are refetched on an unknown
// kid (with a cooldown); verified tokens are cached until exp or a key change; static keys work.

import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT, base64url, exportJWK, generateKeyPair, importJWK, type CryptoKey } from 'jose';
import { bearer, startGateway, type GatewayTestEngine } from './helpers.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, SANDBOX_KID, SANDBOX_PRIVATE_JWK } from '../../sandbox/idp/sandbox-key.ts';
import { TokenVerifier } from '../../engine/gateway/jwt.ts';
import { createLogger } from '../../engine/observability/logger.ts';

let e: GatewayTestEngine;
let sandboxKey: CryptoKey;
const LIMITS = { 'gateway.rateLimits.anonymous': '100000', 'gateway.rateLimits.subscriptionPublic': '100000' };

beforeAll(async () => {
  e = await startGateway(LIMITS);
  sandboxKey = (await importJWK({ ...SANDBOX_PRIVATE_JWK }, 'RS256')) as CryptoKey;
});
afterAll(async () => {
  await e?.close();
});

const now = () => Math.floor(Date.now() / 1000);

function claims(over: Record<string, unknown> = {}) {
  return { sub: 'alice', iss: SANDBOX_ISSUER, aud: SANDBOX_AUDIENCE, iat: now(), exp: now() + 600, ...over };
}

async function signed(
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
  key: CryptoKey | Uint8Array = sandboxKey,
): Promise<string> {
  const clean = Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
  return new SignJWT(clean)
    .setProtectedHeader({ alg: 'RS256', kid: SANDBOX_KID, typ: 'JWT', ...header } as any)
    .sign(key);
}

async function callFx(token?: string) {
  return e.rpc(
    'tools/call',
    { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'GBP' } },
    token === undefined ? {} : bearer(token),
  );
}

function expectInvalidToken(r: { status: number; headers: Headers; body: any }) {
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  expect(r.body.error).toBe('invalid_token');
}

describe('valid tokens', () => {
  it('a public tool works without a token and with a valid one', async () => {
    expect((await callFx()).body.result.isError).toBe(false);
    expect((await callFx(await signed(claims()))).body.result.isError).toBe(false);
  });

  it('a small clock skew is tolerated', async () => {
    const r = await callFx(await signed(claims({ exp: now() - 5, nbf: now() + 5 })));
    expect(r.status).toBe(200);
  });
});

describe('attacks: each answered 401 invalid_token, also on a public tool', () => {
  it('alg: none', async () => {
    const token = new UnsecuredJWT(claims()).encode();
    expectInvalidToken(await callFx(token));
    // and a none header grafted onto a real signature
    const real = await signed(claims());
    const [, p, s] = real.split('.');
    expectInvalidToken(
      await callFx(`${base64url.encode(JSON.stringify({ alg: 'none', kid: SANDBOX_KID }))}.${p}.${s}`),
    );
  });

  it('HS256 signed with the RSA public key as the secret', async () => {
    const { d, p, q, dp, dq, qi, ...pub } = SANDBOX_PRIVATE_JWK;
    void d;
    void p;
    void q;
    void dp;
    void dq;
    void qi;
    const pem = createPublicKey({ key: { ...pub }, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const token = await signed(claims(), { alg: 'HS256' }, new TextEncoder().encode(pem));
    expectInvalidToken(await callFx(token));
  });

  it('expired', async () => {
    expectInvalidToken(await callFx(await signed(claims({ iat: now() - 7200, exp: now() - 3600 }))));
  });

  it('nbf in the future', async () => {
    expectInvalidToken(await callFx(await signed(claims({ nbf: now() + 3600 }))));
  });

  it('wrong audience', async () => {
    expectInvalidToken(await callFx(await signed(claims({ aud: 'another-api' }))));
  });

  it('wrong issuer', async () => {
    expectInvalidToken(await callFx(await signed(claims({ iss: 'https://evil.example' }))));
  });

  it('unknown kid (a key the provider does not publish)', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    expectInvalidToken(await callFx(await signed(claims(), { kid: 'rogue-key' }, privateKey)));
    // the right kid with the wrong key is a bad signature
    expectInvalidToken(await callFx(await signed(claims(), {}, privateKey)));
  });

  it('tampered payload', async () => {
    const real = await signed(claims());
    const [h, , s] = real.split('.');
    const forged = base64url.encode(JSON.stringify(claims({ sub: 'bob' })));
    expectInvalidToken(await callFx(`${h}.${forged}.${s}`));
  });

  it('missing exp', async () => {
    expectInvalidToken(await callFx(await signed(claims({ exp: undefined }))));
  });

  it('missing sub, garbage, and a non-Bearer scheme', async () => {
    expectInvalidToken(await callFx(await signed(claims({ sub: undefined }))));
    expectInvalidToken(await callFx('not.a.jwt'));
    // credentials that are no bearer token: RFC 6750's invalid_request in the challenge
    const r = await e.rpc('ping', undefined, { authorization: 'Basic YWxpY2U6cHc=' });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_token');
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_request"/);
  });

  it('a subject that is no plain user id, or the reserved anonymous, is refused', async () => {
    for (const sub of ['alice ', ' alice', 'ali ce', 'anonymous', 'x'.repeat(257), 'bob\u00e9']) {
      expectInvalidToken(await callFx(await signed(claims({ sub }))));
    }
    // ids of common providers pass: UUIDs, emails, auth0-style and base64 subjects
    for (const sub of [
      '3f0c6a8e-1b7d-4c1e-9d2a-6f5e4b3c2a10',
      'alice@example.com',
      'auth0|5f7c8ec7c33c6c004bbafe82',
      'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
    ]) {
      expect((await callFx(await signed(claims({ sub })))).status).toBe(200);
    }
  });

  it('a user-scoped tool with a bad token is 401 and the backend is never called', async () => {
    e.platform.server.clearRequests();
    const r = await e.rpc(
      'tools/call',
      { name: 'getMyAccountBalance', arguments: {} },
      bearer(await signed(claims({ aud: 'x' }))),
    );
    expectInvalidToken(r);
    expect(e.platform.server.requests()).toHaveLength(0);
  });
});

describe('key discovery, rotation and the verified-token cache', () => {
  // an engine of its own: the attacks above already spent the refetch cooldown of `e`. The cooldown
  // is long (30 s) and the test steps over it with the verifier's clock, so no sleep and no race
  // with a slow machine: the five calls below only have to fit in 30 s.
  let e: GatewayTestEngine;
  beforeAll(async () => {
    e = await startGateway({ ...LIMITS, 'gateway.jwt.jwksCooldownSeconds': '30' });
  });
  afterAll(async () => {
    await e?.close();
  });
  const callFx = (token?: string) =>
    e.rpc(
      'tools/call',
      { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'GBP' } },
      token === undefined ? {} : bearer(token),
    );

  it('caches a verified token by its string and drops the cache when the keys change', async () => {
    const v = e.gateway.running!.verifier;
    const t = await signed(claims({ sub: 'cache-user' }));
    await callFx(t);
    const before = v.cachedTokens;
    expect(before).toBeGreaterThan(0);
    await callFx(t);
    expect(v.cachedTokens).toBe(before);

    // rotate: the provider drops the old key; a token with the new kid triggers one refetch
    const fetches = e.idp.jwksFetches();
    const kid = await e.idp.rotate(true);
    const fresh = await e.idp.sign({ sub: 'carol' });
    const ok = await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} }, bearer(fresh));
    expect(ok.body.result.structuredContent.userId).toBe('carol');
    expect(e.idp.jwksFetches()).toBe(fetches + 1);
    expect(kid).not.toBe(SANDBOX_KID);
    expect(v.cachedTokens).toBe(1); // the key change emptied the cache; only the fresh token is in it
    // the old key is gone: the token cached before no longer passes
    expectInvalidToken(await callFx(t));
  });

  it('unknown kids refetch at most once per cooldown', async () => {
    const v = e.gateway.running!.verifier;
    let skew = 0;
    v.now = () => Date.now() + skew;
    const { privateKey } = await generateKeyPair('RS256');
    const tokens = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => signed(claims(), { kid: `rogue-${i}` }, privateKey)),
    );
    // the rotation above refetched less than 30 s ago: an unknown kid now does not refetch
    let fetches = e.idp.jwksFetches();
    expectInvalidToken(await callFx(tokens[0]));
    expect(e.idp.jwksFetches()).toBe(fetches);
    // 31 s later: the first unknown kid refetches once, the next ones within the cooldown do not
    skew = 31_000;
    fetches = e.idp.jwksFetches();
    for (const t of tokens.slice(1)) expectInvalidToken(await callFx(t));
    expect(e.idp.jwksFetches()).toBe(fetches + 1);
    v.now = Date.now;
  });
});

describe('requireToken', () => {
  let strict: GatewayTestEngine;
  beforeAll(async () => {
    strict = await startGateway({ ...LIMITS, 'gateway.requireToken': 'true' });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('refuses requests without a token, also for public tools', async () => {
    const r = await strict.rpc('tools/list');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const ok = await strict.rpc('tools/list', undefined, bearer(await strict.token('alice')));
    expect(ok.status).toBe(200);
  });
});

describe('static keys', () => {
  const log = createLogger('silent');
  const base = {
    issuer: 'https://issuer.test',
    audience: ['api'],
    algorithms: ['ES256', 'RS256'],
    clockToleranceSeconds: 5,
    jwksCooldownSeconds: 30,
    jwksMaxAgeSeconds: 600,
    tokenCacheSize: 10,
  };

  it('a PEM public key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const v = new TokenVerifier(
      { ...base, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string },
      log,
    );
    const t = await new SignJWT({ sub: 'u1' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(base.issuer)
      .setAudience('api')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await v.verify(t)).sub).toBe('u1');
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const bad = await new SignJWT({ sub: 'u1' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(base.issuer)
      .setAudience('api')
      .setExpirationTime('5m')
      .sign(other);
    await expect(v.verify(bad)).rejects.toThrow(/signature/);
  });

  it('a JWKS file', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const dir = mkdtempSync(join(tmpdir(), 'gw-jwks-'));
    const file = join(dir, 'jwks.json');
    writeFileSync(file, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' }] }));
    const v = new TokenVerifier({ ...base, jwksFile: file }, log);
    const t = await new SignJWT({ sub: 'u2' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(base.issuer)
      .setAudience('api')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await v.verify(t)).sub).toBe('u2');
    const wrongAud = await new SignJWT({ sub: 'u2' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(base.issuer)
      .setAudience('nope')
      .setExpirationTime('5m')
      .sign(privateKey);
    await expect(v.verify(wrongAud)).rejects.toThrow(/audience/);
  });
});
