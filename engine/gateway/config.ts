// The gateway's settings from values/gateway.values.yaml (with the environment's overrides):
// subscriptions of the current environment, JWT settings, rate limits, proxies, Redis.

import type { ValuesFile, ValuesSet } from '../config/values.ts';
import { DiagnosticError, type Diagnostic } from '../core/diagnostics.ts';
import { parseProxy } from '../config/proxy-entry.ts';

export interface Subscription {
  name: string;
  /** SHA-256 digests (32 bytes) of the primary and secondary keys */
  hashes: Buffer[];
  /** tool names, or ['*'] for every approved tool */
  tools: string[];
  /** per-subscription overrides of the quotas */
  quotaPublic?: number;
  quotaUser?: number;
}

export interface JwtSettings {
  issuer: string;
  audience: string[];
  discoveryUrl?: string;
  jwksUri?: string;
  jwksFile?: string;
  publicKeyPem?: string;
  algorithms: string[];
  clockToleranceSeconds: number;
  jwksCooldownSeconds: number;
  jwksMaxAgeSeconds: number;
  tokenCacheSize: number;
  /** the `typ` header every token must carry (e.g. `at+jwt`, RFC 9068); unset: not checked */
  typ?: string;
  /** tokens whose exp - iat is longer are refused, and `iat` is required; unset or 0: no maximum */
  maxLifetimeSeconds?: number;
}

export interface RateLimitSettings {
  windowSeconds: number;
  user: number;
  anonymous: number;
  subscriptionPublic: number;
  subscriptionUser: number;
}

export interface OAuthSettings {
  /** the public URL of /mcp (RFC 9728 `resource`, RFC 8707 resource indicator); '' = derived per request */
  resource: string;
  /** `authorization_servers` of the metadata; [] = [jwt.issuer] */
  authorizationServers: string[];
  /** `scopes_supported`, and the `scope` of the 401 challenges; [] = not advertised */
  scopes: string[];
}

export interface ConfirmationSettings {
  /** how long a confirmation request stays answerable, seconds */
  ttlSeconds: number;
  /** HMAC key of the request state; '' = a random key per process (one replica only) */
  secret: string;
}

export interface TaskSettings {
  /** how long a task's state is kept from its creation, seconds (its `ttlMs`) */
  ttlSeconds: number;
  /** tasks running at once in one engine; a call beyond that waits for its result */
  maxRunning: number;
}

export interface GatewaySettings {
  env: string;
  serverName: string;
  serverVersion: string;
  pageSize: number;
  /** freshness of tools/list and server/discover results for 2026-07-28 clients (ttlMs) */
  listTtlSeconds: number;
  allowedOrigins: string[];
  requireToken: boolean;
  subscriptions: Subscription[];
  /** undefined when no key source is configured (then every bearer token is refused) */
  jwt: JwtSettings;
  rateLimits: RateLimitSettings;
  trustedProxies: string[];
  /** an IPv6 client's anonymous limit is keyed on this prefix (/64: one host's whole subnet) */
  ipv6Prefix: number;
  /** discoverable auth (RFC 9728 protected resource metadata, the 401 challenge) */
  oauth: OAuthSettings;
  /** human confirmation of `confirm: required` tools (confirmation.ts) */
  confirmation: ConfirmationSettings;
  /** tool calls run as tasks (tasks.ts) */
  tasks: TaskSettings;
  /** the audit trail of every decision (audit.ts); false: none in this environment */
  auditEnabled: boolean;
  redis?: { url: string; prefix: string; onError: 'allow' | 'deny' };
  /** outage policy of the limits' Redis (gateway.redis.onError), also when the engine store's Redis serves them */
  redisOnError?: 'allow' | 'deny';
}

export const VALUES_NAME = 'gateway';
const ASYMMETRIC = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** A setting that is wrong: `key` below `gateway.` (and `item` of a list) says where in the values. */
interface Problem {
  message: string;
  key?: string;
  item?: number;
}

function list(v: unknown): string[] {
  if (v === undefined || v === null || v === '') return [];
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** lint reads values without the environmental keys (`<unresolved:KEY>`): nothing to check yet */
const unresolved = (v: unknown): boolean => typeof v === 'string' && v.includes('<unresolved:');

/**
 * A number setting: a YAML number or a numeric string (from --set), at least `min`; a count
 * (`whole`) has no fraction. `''`, `true` or `[]` would read as 0 or 1 through Number(): refused.
 */
function num(v: unknown, key: string, problems: Problem[], min = 0, whole = false): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (unresolved(v)) return min;
  if (!Number.isFinite(n) || n < min || (whole && !Number.isInteger(n))) {
    problems.push({
      key,
      message: `'${key}' must be ${whole ? 'a whole number' : 'a number'} >= ${min}, got ${JSON.stringify(v)}`,
    });
    return min;
  }
  return n;
}

/** `a.b.c` keys below `prefix.` as a nested object (values are unresolved: no env keys in there). */
function subtree(vf: ValuesFile, prefix: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const k of vf.keysList()) {
    if (!k.startsWith(prefix + '.')) continue;
    const parts = k.slice(prefix.length + 1).split('.');
    let o = out;
    for (let i = 0; i < parts.length - 1; i++) o = o[parts[i]] ??= {};
    o[parts[parts.length - 1]] = vf.get(k);
  }
  return out;
}

function prefixLength(v: unknown, problems: Problem[]): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (unresolved(v)) return 64;
  if (Number.isInteger(n) && n >= 1 && n <= 128) return n;
  problems.push({
    key: 'rateLimits.ipv6Prefix',
    message: `'rateLimits.ipv6Prefix' must be a whole number of bits from 1 to 128, got ${JSON.stringify(v)}`,
  });
  return 64;
}

/** gateway.trustedProxies: every entry an address or a CIDR (a list, or a comma-separated string). */
function proxies(v: unknown, problems: Problem[]): string[] {
  const out = list(v);
  out.forEach((p, i) => {
    if (unresolved(p)) return;
    const t = p.trim() === '' ? `an empty entry is not an address or CIDR` : parseProxy(p);
    // a list's item is pointed at; a comma-separated string at the value
    if (typeof t === 'string')
      problems.push({ key: 'trustedProxies', item: Array.isArray(v) ? i : undefined, message: `trustedProxies: ${t}` });
  });
  return out.filter((p) => !unresolved(p));
}

/** gateway.requireToken: a boolean (`'yes'` or `1` silently read as false would open every tool). */
function bool(v: unknown, key: string, problems: Problem[]): boolean {
  if (v === true || v === 'true') return true;
  if (v === undefined || v === null || v === false || v === 'false' || unresolved(v)) return false;
  problems.push({ key, message: `'${key}' must be true or false, got ${JSON.stringify(v)}` });
  return false;
}

export function parseKeyHash(v: unknown): Buffer | undefined {
  const m = /^sha256:([0-9a-f]{64})$/i.exec(String(v ?? ''));
  return m ? Buffer.from(m[1], 'hex') : undefined;
}

export function readSettings(values: ValuesSet): GatewaySettings {
  const vf = values.find(VALUES_NAME);
  if (!vf)
    throw new DiagnosticError([
      {
        file: `${values.dir}/${VALUES_NAME}.values.yaml`,
        line: 1,
        col: 1,
        message: 'the gateway needs values/gateway.values.yaml',
      },
    ]);
  const env = values.environment.name;
  const g = (k: string) => vf.get(`gateway.${k}`);
  const problems: Problem[] = [];
  const subs: Subscription[] = [];
  const tree = subtree(vf, `gateway.subscriptions.${env}`);
  for (const [name, s] of Object.entries(tree)) {
    const hashes: Buffer[] = [];
    for (const which of ['primary', 'secondary']) {
      if (s?.[which] === undefined || s[which] === '') continue;
      const h = parseKeyHash(s[which]);
      if (!h)
        problems.push({
          key: `subscriptions.${env}.${name}.${which}`,
          message: `subscription '${name}' ${which}: expected 'sha256:<64 hex>' (engine keys create prints one)`,
        });
      else hashes.push(h);
    }
    if (!hashes.length)
      problems.push({
        key: `subscriptions.${env}.${name}.primary`,
        message: `subscription '${name}' has no key hash (primary)`,
      });
    subs.push({
      name,
      hashes,
      tools: list(s?.tools),
      quotaPublic:
        s?.quota?.public !== undefined
          ? num(s.quota.public, `subscriptions.${env}.${name}.quota.public`, problems, 0, true)
          : undefined,
      quotaUser:
        s?.quota?.user !== undefined
          ? num(s.quota.user, `subscriptions.${env}.${name}.quota.user`, problems, 0, true)
          : undefined,
    });
  }
  const str = (k: string) => {
    const v = g(k);
    return v === undefined || v === null || v === '' ? undefined : String(v);
  };
  const algorithms = list(g('jwt.algorithms'));
  algorithms.forEach((a, i) => {
    if (!ASYMMETRIC.has(a) && !unresolved(a))
      problems.push({
        key: 'jwt.algorithms',
        item: i,
        message: `jwt.algorithms: '${a}' is not allowed (asymmetric algorithms only: ${[...ASYMMETRIC].join(', ')})`,
      });
  });
  const jwt: JwtSettings = {
    issuer: str('jwt.issuer') ?? '',
    audience: list(g('jwt.audience')),
    discoveryUrl: str('jwt.discoveryUrl'),
    jwksUri: str('jwt.jwksUri'),
    jwksFile: str('jwt.jwksFile'),
    publicKeyPem: str('jwt.publicKeyPem'),
    algorithms: algorithms.length ? algorithms : ['RS256'],
    clockToleranceSeconds: num(g('jwt.clockToleranceSeconds') ?? 30, 'jwt.clockToleranceSeconds', problems),
    jwksCooldownSeconds: num(g('jwt.jwksCooldownSeconds') ?? 30, 'jwt.jwksCooldownSeconds', problems),
    jwksMaxAgeSeconds: num(g('jwt.jwksMaxAgeSeconds') ?? 600, 'jwt.jwksMaxAgeSeconds', problems, 1),
    tokenCacheSize: num(g('jwt.tokenCacheSize') ?? 10000, 'jwt.tokenCacheSize', problems, 0, true),
    typ: str('jwt.typ'),
    maxLifetimeSeconds: num(g('jwt.maxLifetimeSeconds') ?? 0, 'jwt.maxLifetimeSeconds', problems) || undefined,
  };
  // a media type (RFC 6838 names), with or without the `application/` that jose ignores when comparing
  if (
    jwt.typ !== undefined &&
    !unresolved(jwt.typ) &&
    !/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)?$/.test(jwt.typ)
  ) {
    problems.push({
      key: 'jwt.typ',
      message: `jwt.typ must be a media type such as 'at+jwt', got ${JSON.stringify(jwt.typ)}`,
    });
  }
  const oauth: OAuthSettings = {
    resource: str('oauth.resource') ?? '',
    authorizationServers: list(g('oauth.authorizationServers')),
    scopes: list(g('oauth.scopes')),
  };
  if (oauth.resource && !unresolved(oauth.resource)) {
    // basic/authorization "Canonical Server URI": absolute, no fragment, no trailing slash
    let u: URL | undefined;
    try {
      u = new URL(oauth.resource);
    } catch {
      /* below */
    }
    if (
      !u ||
      !/^https?:$/.test(u.protocol) ||
      u.hash ||
      oauth.resource.endsWith('/') ||
      /[\s"\\]/.test(oauth.resource)
    ) {
      problems.push({
        key: 'oauth.resource',
        message: `oauth.resource must be the absolute http(s) URL of /mcp without fragment or trailing slash, e.g. https://api.bank.example/mcp; got ${JSON.stringify(oauth.resource)}`,
      });
    }
    // "MCP servers MUST validate that access tokens were issued specifically for them as the
    // intended audience" (RFC 8707): without an explicit audience, the resource identifier is it
    if (!jwt.audience.length) jwt.audience = [oauth.resource];
  }
  const itemOf = (key: string, i: number) => (Array.isArray(g(key)) ? i : undefined);
  oauth.authorizationServers.forEach((a, i) => {
    if (unresolved(a)) return;
    try {
      new URL(a);
    } catch {
      problems.push({
        key: 'oauth.authorizationServers',
        item: itemOf('oauth.authorizationServers', i),
        message: `oauth.authorizationServers: '${a}' is not a URL`,
      });
    }
  });
  oauth.scopes.forEach((sc, i) => {
    if (!unresolved(sc) && !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(sc))
      problems.push({
        key: 'oauth.scopes',
        item: itemOf('oauth.scopes', i),
        message: `oauth.scopes: '${sc}' is not an OAuth scope token (RFC 6749 §3.3)`,
      });
  });
  const sources = ['discoveryUrl', 'jwksUri', 'jwksFile', 'publicKeyPem'].filter((k) => (jwt as any)[k]);
  if (sources.length > 1)
    problems.push({ key: `jwt.${sources[1]}`, message: `jwt: give one key source, not ${sources.join(' and ')}` });
  if (!jwt.issuer) problems.push({ key: 'jwt.issuer', message: 'jwt.issuer is required' });
  if (!jwt.audience.length)
    problems.push({
      key: 'jwt.audience',
      message: 'jwt.audience is required (or oauth.resource, which is then the audience)',
    });
  const redisUrl = str('redis.url');
  const onError = str('redis.onError') ?? 'allow';
  if (onError !== 'allow' && onError !== 'deny' && !unresolved(onError))
    problems.push({ key: 'redis.onError', message: `redis.onError must be 'allow' or 'deny', got '${onError}'` });
  const settings: GatewaySettings = {
    env,
    serverName: str('serverName') ?? 'bank-integration-platform',
    serverVersion: str('serverVersion') ?? '1.0.0',
    pageSize: num(g('pageSize') ?? 50, 'pageSize', problems, 1, true),
    listTtlSeconds: num(g('listTtlSeconds') ?? 300, 'listTtlSeconds', problems),
    allowedOrigins: list(g('allowedOrigins')),
    requireToken: bool(g('requireToken'), 'requireToken', problems),
    subscriptions: subs,
    jwt,
    rateLimits: {
      windowSeconds: num(g('rateLimits.windowSeconds') ?? 60, 'rateLimits.windowSeconds', problems, 1),
      user: num(g('rateLimits.user') ?? 500, 'rateLimits.user', problems, 0, true),
      anonymous: num(g('rateLimits.anonymous') ?? 50, 'rateLimits.anonymous', problems, 0, true),
      subscriptionPublic: num(
        g('rateLimits.subscriptionPublic') ?? 100,
        'rateLimits.subscriptionPublic',
        problems,
        0,
        true,
      ),
      subscriptionUser: num(g('rateLimits.subscriptionUser') ?? 50, 'rateLimits.subscriptionUser', problems, 0, true),
    },
    trustedProxies: proxies(g('trustedProxies'), problems),
    oauth,
    confirmation: {
      ttlSeconds: num(g('confirmation.ttlSeconds') ?? 300, 'confirmation.ttlSeconds', problems, 1),
      secret: str('confirmation.secret') ?? '',
    },
    tasks: {
      ttlSeconds: num(g('tasks.ttlSeconds') ?? 3600, 'tasks.ttlSeconds', problems, 1),
      maxRunning: num(g('tasks.maxRunning') ?? 100, 'tasks.maxRunning', problems, 0, true),
    },
    // default on: only an explicit false turns the trail off
    auditEnabled: g('audit.enabled') === undefined ? true : bool(g('audit.enabled'), 'audit.enabled', problems),
    ipv6Prefix: prefixLength(g('rateLimits.ipv6Prefix') ?? 64, problems),
    redis: redisUrl
      ? { url: redisUrl, prefix: str('redis.prefix') ?? 'gateway:rl:', onError: onError === 'deny' ? 'deny' : 'allow' }
      : undefined,
    // kept without a URL too: the limits then use the engine store's Redis, with this policy
    redisOnError: onError === 'deny' ? 'deny' : 'allow',
  };
  const secret = settings.confirmation.secret;
  if (secret && !unresolved(secret) && secret.length < 32)
    problems.push({ key: 'confirmation.secret', message: 'confirmation.secret must be at least 32 characters' });
  if (problems.length) {
    // at the value that is wrong (the values file, the environment file or --set), else the file's start
    const d: Diagnostic[] = problems.map(({ key, item, message }) => ({
      ...(key !== undefined && vf.has(`gateway.${key}`)
        ? vf.where(`gateway.${key}`, item)
        : { file: vf.file, line: 1, col: 1 }),
      message: `gateway: ${message}`,
    }));
    throw new DiagnosticError(d);
  }
  return settings;
}
