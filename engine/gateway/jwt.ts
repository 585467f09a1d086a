// Bearer JWT verification with jose: the signing keys come from OIDC discovery, a JWKS URL, a JWKS
// file or a PEM public key; an algorithm allowlist (asymmetric only), `exp` required, `iss` and
// `aud` checked, a small clock tolerance, `sub` is the user id. RFC 8725 hardening: an optional
// required `typ` header (e.g. `at+jwt`, RFC 9068), no `iat` in the future, a maximum lifetime
// (exp - iat). Verified tokens are cached by their exact string (bounded, first in first out): an
// entry lives until the token's `exp` and is dropped when the signing keys change. Remote keys are
// refetched when older than their max age and on an unknown `kid`, at most once per cooldown.

import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Logger } from 'pino';
import type { JwtSettings } from './config.ts';
import { BoundedCache } from './bounded-cache.ts';
import { getJson, type GetJson } from './get-json.ts';

/**
 * Characters of user ids (subjects of common identity providers: ids, UUIDs, emails, `auth0|123`,
 * base64url ids). The platform backend accepts no more than this, so a token whose `sub` it would
 * refuse is a 401 here rather than a 502 tool error later; `/`, `+` and `=` stay out of URLs and headers.
 */
export const USER_ID = /^[A-Za-z0-9._@|:-]{1,128}$/;
export const ANONYMOUS = 'anonymous';

/** Which check refused a token: a bounded set, the `detail` of gateway_refusals_total{reason="invalid_token"}. */
export const TOKEN_CHECKS = [
  'expired',
  'not_yet_valid',
  'audience',
  'issuer',
  'missing_claim',
  'invalid_claim',
  'algorithm',
  'signature',
  'unknown_key',
  'malformed',
  'too_long',
  'subject',
  'no_keys',
  'unverifiable',
  // RFC 8725: the `typ` header is not the required one; `iat` ahead of the clock; exp - iat over the maximum
  'type',
  'issued_in_future',
  'lifetime',
] as const;
export type TokenCheck = (typeof TOKEN_CHECKS)[number];

export class TokenError extends Error {
  constructor(
    message: string,
    readonly check: TokenCheck = 'unverifiable',
  ) {
    super(message);
    this.name = 'TokenError';
  }
}

export interface VerifiedToken {
  sub: string;
  /** ms since epoch */
  exp: number;
  nbf?: number;
  generation: number;
  /** the token's scopes: the `scope` claim (space-separated, RFC 8693 §4.2) or an `scp` array */
  scopes: ReadonlySet<string>;
  /** for the audit trail: the token's issuer and id (never the token) */
  iss?: string;
  jti?: string;
  /** when the user last signed in (OIDC `auth_time`), ms since epoch: a step-up confirmation checks it */
  authTime?: number;
}

/** The scopes a token carries: `scope` (a space-separated string) or `scp` (an array of strings). */
function scopesOf(payload: Record<string, unknown>): ReadonlySet<string> {
  const out = new Set<string>();
  if (typeof payload.scope === 'string') for (const s of payload.scope.split(' ')) if (s) out.add(s);
  if (Array.isArray(payload.scp)) for (const s of payload.scp) if (typeof s === 'string' && s) out.add(s);
  return out;
}

const MAX_TOKEN = 8192;

/** The refusal of a jose error: which check failed and a message for the caller. */
function refusal(e: unknown): TokenError {
  if (e instanceof TokenError) return e;
  if (e instanceof errors.JWTExpired) return new TokenError('the token has expired', 'expired');
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'nbf') return new TokenError('the token is not valid yet (nbf)', 'not_yet_valid');
    if (e.claim === 'aud') return new TokenError('the token is for another audience', 'audience');
    if (e.claim === 'iss') return new TokenError('the token is from another issuer', 'issuer');
    if (e.claim === 'typ') return new TokenError('the token is not of the required type (typ header)', 'type');
    if (e.reason === 'missing') return new TokenError(`the token has no '${e.claim}' claim`, 'missing_claim');
    return new TokenError(`the '${e.claim}' claim is invalid`, 'invalid_claim');
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return new TokenError("the token's algorithm is not allowed", 'algorithm');
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return new TokenError("the token's signature is invalid", 'signature');
  if (e instanceof errors.JWKSNoMatchingKey)
    return new TokenError('the token is signed with an unknown key', 'unknown_key');
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid)
    return new TokenError('the token is malformed', 'malformed');
  return new TokenError('the token could not be verified', 'unverifiable');
}

export class TokenVerifier {
  private cache: BoundedCache<string, VerifiedToken>;
  private generation = 0;
  private jwks?: ReturnType<typeof createLocalJWKSet>;
  private jwksFingerprint = '';
  private staticKey?: KeyObject;
  private fetchedAt = 0;
  private lastRefetch = 0;
  private jwksUri?: string;
  private inflight?: Promise<void>;
  private getKey: JWTVerifyGetKey;

  /**
   * `now`: the clock (ms) of the key refetch cooldown and max age; tests may replace it to step
   * over a cooldown without sleeping.
   */
  constructor(
    private s: JwtSettings,
    private log: Logger,
    private fetchJson: GetJson = getJson,
    public now: () => number = Date.now,
  ) {
    // first in, first out: a hit is one lookup; an evicted token is verified again once
    this.cache = new BoundedCache(s.tokenCacheSize);
    this.jwksUri = s.jwksUri;
    if (s.publicKeyPem) {
      const pem = s.publicKeyPem.includes('-----BEGIN') ? s.publicKeyPem : readFileSync(s.publicKeyPem, 'utf8');
      this.staticKey = createPublicKey(pem);
    } else if (s.jwksFile) {
      this.setJwks(JSON.parse(readFileSync(s.jwksFile, 'utf8')) as JSONWebKeySet);
    }
    this.getKey = async (header, token) => {
      if (this.staticKey) return this.staticKey;
      if (!this.remote) {
        if (!this.jwks) throw new TokenError('no signing keys are configured', 'no_keys');
        return this.jwks(header, token);
      }
      if (!this.jwks || this.now() - this.fetchedAt > s.jwksMaxAgeSeconds * 1000)
        await this.refresh(true).catch(() => {});
      if (!this.jwks) throw new TokenError("the identity provider's keys are not available", 'no_keys');
      try {
        return await this.jwks(header, token);
      } catch (e) {
        if (!(e instanceof errors.JWKSNoMatchingKey)) throw e;
        // an unknown kid: the provider may have rotated; refetch at most once per cooldown
        if (this.now() - this.lastRefetch < s.jwksCooldownSeconds * 1000) throw e;
        await this.refresh(true).catch(() => {});
        return this.jwks(header, token);
      }
    };
  }

  private get remote(): boolean {
    return !!(this.s.discoveryUrl || this.s.jwksUri);
  }

  /** Fetches the keys now (start-up); failures are logged, tokens fail until keys arrive. */
  async init(): Promise<void> {
    if (!this.remote) return;
    await this.refresh(false).catch((e) =>
      this.log.warn({ err: { message: (e as Error).message } }, 'gateway: signing keys not fetched yet'),
    );
  }

  private refresh(counted: boolean): Promise<void> {
    if (counted) this.lastRefetch = this.now();
    this.inflight ??= this.fetchKeys().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchKeys(): Promise<void> {
    const get = (url: string): Promise<any> => this.fetchJson(url, 5000);
    if (this.s.discoveryUrl && !this.jwksUri) {
      const doc = await get(this.s.discoveryUrl);
      if (doc?.issuer !== this.s.issuer)
        throw new Error(`discovery document issuer '${doc?.issuer}' is not the configured issuer '${this.s.issuer}'`);
      if (typeof doc.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
      this.jwksUri = doc.jwks_uri;
    }
    const jwks = await get(this.jwksUri!);
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error('JWKS has no keys array');
    this.setJwks(jwks);
    this.fetchedAt = this.now();
  }

  private setJwks(jwks: JSONWebKeySet): void {
    const keys = jwks.keys.filter((k) => !k.d && (k.use === undefined || k.use === 'sig'));
    const fp = JSON.stringify(keys.map((k) => JSON.stringify(k)).sort());
    if (fp !== this.jwksFingerprint) {
      if (this.jwksFingerprint)
        this.log.info({ keys: keys.map((k) => k.kid) }, 'gateway: signing keys changed; verified-token cache cleared');
      this.jwksFingerprint = fp;
      this.jwks = createLocalJWKSet({ keys });
      this.generation++;
      this.cache.clear();
    }
  }

  /** A token verified before and still valid (no signature check: a map lookup), else undefined. */
  cached(token: string): VerifiedToken | undefined {
    const hit = this.cache.get(token);
    if (!hit) return undefined;
    const now = Date.now();
    const tol = this.s.clockToleranceSeconds * 1000;
    if (hit.generation === this.generation && now <= hit.exp + tol && (hit.nbf === undefined || hit.nbf - tol <= now))
      return hit;
    this.cache.delete(token);
    return undefined;
  }

  /** The verified token, from the cache when this exact string was verified before. */
  async verify(token: string): Promise<VerifiedToken> {
    const hit = this.cached(token);
    if (hit) return hit;
    if (token.length > MAX_TOKEN) throw new TokenError('the token is too long', 'too_long');
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.getKey, {
        issuer: this.s.issuer,
        audience: this.s.audience,
        algorithms: this.s.algorithms,
        clockTolerance: this.s.clockToleranceSeconds,
        typ: this.s.typ || undefined,
        // with a maximum lifetime, `iat` is required: without it the lifetime cannot be known
        requiredClaims: this.s.maxLifetimeSeconds ? ['exp', 'sub', 'iat'] : ['exp', 'sub'],
      }));
    } catch (e) {
      throw refusal(e);
    }
    // jose checks `iat` only as a number; a token from the future or living too long is refused
    if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + this.s.clockToleranceSeconds) {
      throw new TokenError('the token is issued in the future (iat)', 'issued_in_future');
    }
    if (this.s.maxLifetimeSeconds && payload.exp! - payload.iat! > this.s.maxLifetimeSeconds) {
      throw new TokenError(
        `the token lives longer than the allowed ${this.s.maxLifetimeSeconds} seconds (exp - iat)`,
        'lifetime',
      );
    }
    // the subject becomes the user id sent to backends: one plain token of id characters, and
    // never the reserved `anonymous` (a " alice" would otherwise reach a backend as "alice")
    if (typeof payload.sub !== 'string' || !USER_ID.test(payload.sub) || payload.sub === ANONYMOUS)
      throw new TokenError("the token has no usable 'sub' claim", 'subject');
    const v: VerifiedToken = {
      sub: payload.sub,
      exp: payload.exp! * 1000,
      nbf: payload.nbf !== undefined ? payload.nbf * 1000 : undefined,
      generation: this.generation,
      scopes: scopesOf(payload),
      iss: payload.iss,
      jti: typeof payload.jti === 'string' ? payload.jti.slice(0, 256) : undefined,
      authTime:
        typeof payload.auth_time === 'number' && Number.isFinite(payload.auth_time)
          ? payload.auth_time * 1000
          : undefined,
    };
    this.cache.set(token, v);
    return v;
  }

  get cachedTokens(): number {
    return this.cache.size;
  }
}
