// The sandbox identity provider: OpenID Connect discovery, OAuth 2.0 authorization server metadata
// (RFC 8414, what MCP clients try first) and a JWKS endpoint on a real HTTP port, plus a token
// endpoint. Tokens are RS256 JWTs signed with the fixed sandbox key (./sandbox-key.ts), so
// `engine token --sub alice` in another process mints tokens this sandbox's gateway accepts. Tests
// rotate keys (`rotate()`) to exercise refetch-on-unknown-kid.
//
//   GET  /.well-known/openid-configuration        OIDC discovery (issuer: the tokens' `iss`)
//   GET  /.well-known/oauth-authorization-server  RFC 8414 metadata (issuer: this server's URL, the
//                                                 identifier MCP clients discover and check)
//   GET  /jwks                                     the public keys
//   POST /token  grant_type=client_credentials     an access token without a browser: the client
//                (form; client_id/client_secret     authenticates with HTTP Basic or the form, may name
//                 or HTTP Basic; resource, scope)   the resource (RFC 8707), and is the token's `sub`
//   POST /token  {"sub": "alice", "ttl": 3600}     a demo user token (JSON; sandbox only)
//
// Sandbox simplification: the RFC 8414 issuer is the URL clients reach, while tokens keep the fixed
// `iss` the gateway is configured with (a client never reads an access token).

import { generateKeyPair, exportJWK, importJWK, SignJWT, type JWK, type CryptoKey } from 'jose';
import { createSimServer, type SimLog, type SimServer } from '../lib/sim-server.ts';
import { SANDBOX_AUDIENCE, SANDBOX_ISSUER, SANDBOX_KID, SANDBOX_PRIVATE_JWK } from './sandbox-key.ts';

export { SANDBOX_AUDIENCE, SANDBOX_ISSUER } from './sandbox-key.ts';

/** The sandbox's OAuth client (client_credentials), demo values published on purpose. */
export const SANDBOX_CLIENT_ID = 'sandbox-agent';
export const SANDBOX_CLIENT_SECRET = 'sandbox-agent-secret';
const CLIENTS: Record<string, string> = { [SANDBOX_CLIENT_ID]: SANDBOX_CLIENT_SECRET };

export interface IdpOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  record?: boolean;
  issuer?: string;
  audience?: string;
}

export interface SignOptions {
  sub: string;
  /** seconds until exp (default 3600) */
  ttl?: number;
  audience?: string | string[];
  issuer?: string;
  /** sign with this key id (default: the current key) */
  kid?: string;
  claims?: Record<string, unknown>;
}

export interface Idp {
  url: string;
  issuer: string;
  audience: string;
  server: SimServer;
  /** a signed access token */
  sign(opts: SignOptions): Promise<string>;
  /** adds a fresh RS256 key and makes it current; `retireOld` drops the others from the JWKS */
  rotate(retireOld?: boolean): Promise<string>;
  /** number of JWKS fetches (tests check the refetch cooldown) */
  jwksFetches(): number;
  close(): Promise<void>;
}

interface KeyEntry {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function signSandboxToken(opts: SignOptions & { privateJwk?: JWK }): Promise<string> {
  const key = await importJWK(opts.privateJwk ?? { ...SANDBOX_PRIVATE_JWK }, 'RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...opts.claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: opts.kid ?? SANDBOX_KID })
    .setSubject(opts.sub)
    .setIssuer(opts.issuer ?? SANDBOX_ISSUER)
    .setAudience(opts.audience ?? SANDBOX_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.ttl ?? 3600))
    .sign(key as CryptoKey);
}

export async function startIdp(opts: IdpOptions = {}): Promise<Idp> {
  const issuer = opts.issuer ?? SANDBOX_ISSUER;
  const audience = opts.audience ?? SANDBOX_AUDIENCE;
  const { d, p, q, dp, dq, qi, ...pub } = SANDBOX_PRIVATE_JWK;
  void d;
  void p;
  void q;
  void dp;
  void dq;
  void qi;
  const keys: KeyEntry[] = [
    {
      kid: SANDBOX_KID,
      privateKey: (await importJWK({ ...SANDBOX_PRIVATE_JWK }, 'RS256')) as CryptoKey,
      publicJwk: { ...pub, kid: SANDBOX_KID, alg: 'RS256', use: 'sig' },
    },
  ];
  let current = keys[0];
  let fetches = 0;
  const server = createSimServer({ name: 'idp', port: opts.port, host: opts.host, log: opts.log, record: opts.record });

  const sign = async (s: SignOptions): Promise<string> => {
    const k = s.kid ? keys.find((x) => x.kid === s.kid) : current;
    if (!k) throw new Error(`idp: no key '${s.kid}'`);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...s.claims })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: k.kid })
      .setSubject(s.sub)
      .setIssuer(s.issuer ?? issuer)
      .setAudience(s.audience ?? audience)
      .setIssuedAt(now)
      .setExpirationTime(now + (s.ttl ?? 3600))
      .sign(k.privateKey);
  };

  server
    .route('GET', '/.well-known/openid-configuration', () => ({
      status: 200,
      body: {
        issuer,
        jwks_uri: `${server.url}/jwks`,
        token_endpoint: `${server.url}/token`,
        response_types_supported: ['token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        grant_types_supported: ['urn:sandbox:demo'],
      },
    }))
    .route('GET', '/.well-known/oauth-authorization-server', () => ({
      status: 200,
      body: {
        issuer: server.url,
        token_endpoint: `${server.url}/token`,
        jwks_uri: `${server.url}/jwks`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        response_types_supported: ['token'],
      },
    }))
    .route('GET', '/jwks', () => {
      fetches++;
      return { status: 200, body: { keys: keys.map((k) => k.publicJwk) }, headers: { 'cache-control': 'max-age=300' } };
    })
    .route('POST', '/token', async (req) => {
      if (
        typeof req.body === 'string' ||
        String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
      ) {
        return clientCredentials(new URLSearchParams(req.rawBody.toString('utf8')), req.headers.authorization);
      }
      const b = (req.body ?? {}) as { sub?: unknown; ttl?: unknown };
      if (typeof b.sub !== 'string' || !/^[A-Za-z0-9._@-]{1,128}$/.test(b.sub)) {
        return {
          status: 400,
          body: {
            error: 'invalid_request',
            error_description: 'sub: a user id of 1-128 characters [A-Za-z0-9._@-] is required',
          },
        };
      }
      const ttl = typeof b.ttl === 'number' && b.ttl > 0 && b.ttl <= 86_400 ? b.ttl : 3600;
      return {
        status: 200,
        body: { access_token: await sign({ sub: b.sub, ttl }), token_type: 'Bearer', expires_in: ttl },
      };
    });
  /** RFC 6749 §4.4 client credentials grant (errors of §5.2; `invalid_target` of RFC 8707). */
  const clientCredentials = async (form: URLSearchParams, authorization: string | undefined) => {
    const err = (status: number, error: string, error_description: string, headers?: Record<string, string>) => ({
      status,
      body: { error, error_description },
      headers: { 'cache-control': 'no-store', ...headers },
    });
    let id = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
    if (basic) {
      const [u, ...rest] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      try {
        // RFC 6749 §2.3.1: both form-urlencoded before the Basic encoding
        id = decodeURIComponent(u.replace(/\+/g, ' '));
        secret = decodeURIComponent(rest.join(':').replace(/\+/g, ' '));
      } catch {
        id = undefined;
      }
    }
    if (form.get('grant_type') !== 'client_credentials')
      return err(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    if (!id || CLIENTS[id] === undefined || CLIENTS[id] !== secret) {
      return err(401, 'invalid_client', 'unknown client or wrong secret', {
        'www-authenticate': 'Basic realm="sandbox-idp"',
      });
    }
    const resource = form.get('resource') ?? undefined;
    if (resource !== undefined) {
      let u: URL | undefined;
      try {
        u = new URL(resource);
      } catch {
        /* below */
      }
      if (!u || u.hash)
        return err(400, 'invalid_target', 'resource must be an absolute URI without a fragment (RFC 8707)');
    }
    const scope = form.get('scope') ?? undefined;
    const ttl = 3600;
    // the gateway audience of this sandbox, and the resource the client named (RFC 8707)
    const access_token = await sign({
      sub: id,
      ttl,
      audience: resource ? [audience, resource] : audience,
      claims: { client_id: id, ...(scope ? { scope } : {}) },
    });
    return {
      status: 200,
      body: { access_token, token_type: 'Bearer', expires_in: ttl, ...(scope ? { scope } : {}) },
      headers: { 'cache-control': 'no-store' },
    };
  };

  await server.start();

  return {
    get url() {
      return server.url;
    },
    issuer,
    audience,
    server,
    sign,
    async rotate(retireOld = false) {
      const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
      const kid = `sandbox-rs256-${keys.length + 1}-${Date.now().toString(36)}`;
      const entry: KeyEntry = {
        kid,
        privateKey,
        publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
      };
      if (retireOld) keys.length = 0;
      keys.push(entry);
      current = entry;
      return kid;
    },
    jwksFetches: () => fetches,
    close: () => server.close(),
  };
}
