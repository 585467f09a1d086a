// The `engine:` section of an environment file: the listener and the engine-wide limits. It has a
// schema (lint names unknown keys with a suggestion, like everywhere else) and a type, so a typo
// such as `server: {prot: 8080}` is an error instead of a setting silently ignored.

import { checkConfig } from '../schemas/config-check.ts';
import type { Diagnostic } from '../core/diagnostics.ts';
import { diagAt, type YamlSource } from '../core/yaml-source.ts';
import { allowedHostError } from './host-name.ts';
import { parseProxy } from './proxy-entry.ts';

export interface ServerSettings {
  /** listen port */
  port: number;
  /** listen address */
  host: string;
  /** largest request body, bytes */
  bodyLimit: number;
  /** deepest nesting of a JSON request body (arrays and objects); deeper is a 400 */
  jsonDepthLimit: number;
  /** proxies whose X-Forwarded-For is trusted (addresses or CIDRs) */
  trustProxy: string[];
  /** time allowed to in-flight exchanges at shutdown, ms */
  shutdownTimeout: number;
  /** longest time to receive a whole request, headers and body, ms; past it 408 and the connection is closed */
  requestTimeout: number;
  /** longest time to receive a request's headers, ms (at most requestTimeout) */
  headersTimeout: number;
  /** most open client connections (idle keep-alive ones count); more are closed as they arrive */
  maxConnections: number;
}

export interface ExpressionSettings {
  /** longest time one JSONata evaluation may run, ms */
  timeout: number;
  /** deepest recursion of one JSONata evaluation (function calls and nested blocks) */
  maxDepth: number;
  /** the most items a range (`a..b`) of one JSONata evaluation may have */
  maxRange: number;
}

/** Where a replica keeps what it remembers across requests (engine/store/store.ts). */
export interface StoreSettings {
  /** Redis shared by the replicas; without it, memory (one process) */
  redis?: { url: string; prefix: string; commandTimeout: number };
  /** how long an exchange may hold an in-flight claim (a dedupe key) before another may take it, ms */
  inFlightTimeout: number;
  /**
   * the durable store (engine/store/durable.ts) on PostgreSQL; without a URL (here or in
   * ENGINE_STORE_POSTGRES_URL), embedded (PGlite in `embedded.dir`)
   */
  postgres?: { url: string; schema: string; poolSize: number };
  /** the embedded durable store's data folder, relative to the project */
  embedded?: { dir: string };
}

/** The browser console (engine/console, docs/console.md). */
export interface ConsoleSettings {
  /** served under /console/; absent: on in a simulated environment, off elsewhere */
  enabled?: boolean;
  /** exchanges the console keeps (a ring: the oldest go first) */
  exchanges: number;
  /** longest masked body text kept per step, call or event, characters */
  bodyLimit: number;
  /**
   * most exchanges recorded per second while only the console reads the spans (no exporter): under
   * heavier load the rest run untraced, so recording costs the hot path little (rate-sampler.ts)
   */
  recordPerSecond: number;
  /** host names it answers to besides loopback and the listen address (`name` or `name:port`) */
  allowedHosts: string[];
}

export interface EngineSettings {
  /**
   * the most replicas of this environment that run at once (ENGINE_REPLICAS wins): more than one
   * needs the shared store for what routes remember (store/replica-check.ts); absent: not said
   */
  replicas?: number;
  server: ServerSettings;
  expressions: ExpressionSettings;
  /** absent: memory, with the defaults */
  store?: StoreSettings;
  console: ConsoleSettings;
}

export const STORE_DEFAULTS = { prefix: 'engine:', commandTimeout: 2000, inFlightTimeout: 120_000 };

/** The durable store's defaults (engine/store/durable-for.ts). */
export const DURABLE_DEFAULTS = { schema: 'engine', poolSize: 5, dir: '.engine/store' };

export const ENGINE_DEFAULTS: EngineSettings = {
  // requestTimeout: the largest ACH batch (5,000 entries, 1.3 MB; 40-100 ms over loopback) arrives
  // within it from 0.4 Mbit/s up, a body at the batch route's 16 MiB body-limit from 4.5 Mbit/s up;
  // Node's own 300 s let a client that dribbles its body hold a connection five minutes
  server: {
    port: 8080,
    host: '127.0.0.1',
    bodyLimit: 1024 * 1024,
    jsonDepthLimit: 64,
    trustProxy: [],
    shutdownTimeout: 10_000,
    requestTimeout: 30_000,
    headersTimeout: 10_000,
    maxConnections: 1024,
  },
  expressions: { timeout: 1000, maxDepth: 500, maxRange: 100_000 },
  console: { exchanges: 200, bodyLimit: 4000, recordPerSecond: 100, allowedHosts: [] },
};

const int = (minimum: number, description: string) => ({ type: 'integer', minimum, description });

export const engineSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'engine-wide settings of an environment',
  properties: {
    replicas: int(
      1,
      'the most replicas of this environment that run at once (ENGINE_REPLICAS wins; an overlay passes it): with more than one, routes that remember keys need the shared store',
    ),
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        port: { ...int(0, 'listen port (0: any free port)'), maximum: 65535 },
        host: { type: 'string', minLength: 1, description: 'listen address' },
        bodyLimit: int(1, 'largest request body, bytes'),
        jsonDepthLimit: { ...int(1, 'deepest nesting of a JSON request body'), maximum: 1000 },
        trustProxy: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'proxies whose X-Forwarded-For is trusted (addresses or CIDRs)',
        },
        shutdownTimeout: int(0, 'time allowed to in-flight exchanges at shutdown, ms'),
        requestTimeout: int(
          1,
          'longest time to receive a whole request, headers and body, ms (default 30000); past it: 408, connection closed',
        ),
        headersTimeout: int(
          1,
          'longest time to receive the headers of a request, ms (default 10000, or requestTimeout when that is shorter; at most requestTimeout)',
        ),
        maxConnections: int(
          1,
          'most open client connections, idle keep-alive ones included (default 1024); more are closed as they arrive',
        ),
      },
    },
    expressions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeout: int(1, 'longest time one JSONata evaluation may run, ms'),
        maxDepth: int(10, 'deepest recursion of one JSONata evaluation'),
        maxRange: { ...int(1, 'most items a range (a..b) of one JSONata evaluation may have'), maximum: 10_000_000 },
      },
    },
    console: {
      type: 'object',
      additionalProperties: false,
      description: 'the browser console under /console/ (docs/console.md)',
      properties: {
        enabled: {
          type: 'boolean',
          description: 'serve the console and record exchanges (default: on in a simulated environment, off elsewhere)',
        },
        exchanges: { ...int(1, 'exchanges the console keeps, newest first (default 200)'), maximum: 100_000 },
        bodyLimit: {
          ...int(100, 'longest masked body text kept per step, vendor call or event, characters (default 4000)'),
          maximum: 1_000_000,
        },
        recordPerSecond: {
          ...int(
            1,
            'most exchanges the console records per second when no trace exporter runs; under heavier load the rest are not traced (default 100)',
          ),
          maximum: 1_000_000,
        },
        allowedHosts: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description:
            'host names the console answers to besides loopback and the listen address (name or name:port); any other Host is refused with 403',
        },
      },
    },
    store: {
      type: 'object',
      additionalProperties: false,
      description:
        'what replicas share: webhook dedupe keys (memory for one process, Redis when configured); what survives a restart: failed exchanges (PostgreSQL when configured, else embedded)',
      properties: {
        postgres: {
          type: 'object',
          additionalProperties: false,
          properties: {
            url: {
              type: 'string',
              description:
                "postgres:// URL of the durable store ('' = embedded); a password belongs in ENGINE_STORE_POSTGRES_URL or the file ENGINE_STORE_POSTGRES_URL_FILE names, not here",
            },
            schema: {
              type: 'string',
              pattern: '^[a-z_][a-z0-9_]{0,62}$',
              description: "schema of the engine's tables, created when missing (default engine)",
            },
            poolSize: { ...int(1, 'most connections to PostgreSQL per replica (default 5)'), maximum: 100 },
          },
        },
        embedded: {
          type: 'object',
          additionalProperties: false,
          properties: {
            dir: {
              type: 'string',
              minLength: 1,
              description: 'data folder of the embedded durable store, relative to the project (default .engine/store)',
            },
          },
        },
        redis: {
          type: 'object',
          additionalProperties: false,
          properties: {
            url: {
              type: 'string',
              description:
                "redis:// or rediss:// URL ('' = memory); credentials belong in ENGINE_STORE_REDIS_URL, not here",
            },
            prefix: { type: 'string', description: 'prefix of every key the engine writes' },
            commandTimeout: int(1, 'longest wait for one Redis command, ms (past it: the outage policy of the use)'),
          },
        },
        inFlightTimeout: int(
          1,
          'how long an exchange may hold an in-flight claim before another replica may take it, ms',
        ),
      },
    },
  },
} as const;

/** The settings with defaults filled in, and the problems of the section (positions from `src`). */
export function readEngineSettings(
  raw: unknown,
  src?: YamlSource,
): { settings: EngineSettings; diagnostics: Diagnostic[] } {
  const diagnostics = src
    ? checkConfig(
        raw ?? {},
        engineSettingsSchema as unknown as Record<string, unknown>,
        src,
        ['engine'],
        'engine settings',
      )
    : [];
  const v = (raw && typeof raw === 'object' ? raw : {}) as {
    replicas?: number;
    server?: Partial<ServerSettings>;
    expressions?: Partial<ExpressionSettings>;
    console?: Partial<ConsoleSettings>;
    store?: {
      redis?: { url?: string; prefix?: string; commandTimeout?: number };
      inFlightTimeout?: number;
      postgres?: { url?: string; schema?: string; poolSize?: number };
      embedded?: { dir?: string };
    };
  };
  const settings: EngineSettings = {
    ...(typeof v.replicas === 'number' ? { replicas: v.replicas } : {}),
    server: { ...ENGINE_DEFAULTS.server, ...v.server },
    expressions: { ...ENGINE_DEFAULTS.expressions, ...v.expressions },
    console: { ...ENGINE_DEFAULTS.console, ...v.console },
  };
  // the console's own host names (config/host-name.ts): a URL or a pattern here would let nothing in, or too much
  if (src && Array.isArray(v.console?.allowedHosts)) {
    v.console.allowedHosts.forEach((h, i) => {
      const why = typeof h === 'string' ? allowedHostError(h) : undefined;
      if (why)
        diagnostics.push(
          diagAt(src, ['engine', 'console', 'allowedHosts', i], `engine.console.allowedHosts[${i}]: ${why}`),
        );
    });
  }
  // the schema says strings; each must be an address or CIDR too (the gateway's per-IP limits read them)
  const proxies = v.server?.trustProxy;
  if (src && Array.isArray(proxies)) {
    proxies.forEach((p, i) => {
      const t = typeof p === 'string' && p !== '' ? parseProxy(p) : undefined;
      if (typeof t === 'string')
        diagnostics.push(diagAt(src, ['engine', 'server', 'trustProxy', i], `engine.server.trustProxy: ${t}`));
    });
  }
  const server = settings.server;
  // node:http refuses a header deadline past the request's: unset, it follows a shorter requestTimeout
  if (server.headersTimeout > server.requestTimeout) {
    if (src && v.server?.headersTimeout !== undefined) {
      diagnostics.push(
        diagAt(
          src,
          ['engine', 'server', 'headersTimeout'],
          `engine.server.headersTimeout (${server.headersTimeout} ms) must not be longer than engine.server.requestTimeout (${server.requestTimeout} ms)`,
        ),
      );
    }
    server.headersTimeout = server.requestTimeout;
  }
  if (v.store) {
    const r = v.store.redis;
    // environment files hold no secrets: a password in the URL is refused, not merely logged
    if (src && typeof r?.url === 'string' && hasPassword(r.url)) {
      diagnostics.push(
        diagAt(
          src,
          ['engine', 'store', 'redis', 'url'],
          'engine.store.redis.url: a Redis password is a secret; set the whole URL in the process environment as ENGINE_STORE_REDIS_URL instead',
        ),
      );
    }
    const pgUrl = v.store.postgres?.url;
    if (src && typeof pgUrl === 'string' && hasPassword(pgUrl)) {
      diagnostics.push(
        diagAt(
          src,
          ['engine', 'store', 'postgres', 'url'],
          'engine.store.postgres.url: a PostgreSQL password is a secret; set the whole URL in the process environment as ENGINE_STORE_POSTGRES_URL (or in the file ENGINE_STORE_POSTGRES_URL_FILE names) instead',
        ),
      );
    }
    settings.store = {
      inFlightTimeout: v.store.inFlightTimeout ?? STORE_DEFAULTS.inFlightTimeout,
      // schema and pool size hold for a URL from the process environment too (ENGINE_STORE_POSTGRES_URL)
      postgres:
        pgUrl || v.store.postgres
          ? {
              url: pgUrl ?? '',
              schema: v.store.postgres?.schema ?? DURABLE_DEFAULTS.schema,
              poolSize: v.store.postgres?.poolSize ?? DURABLE_DEFAULTS.poolSize,
            }
          : undefined,
      embedded: v.store.embedded?.dir ? { dir: v.store.embedded.dir } : undefined,
      redis: r?.url
        ? {
            url: r.url,
            prefix: r.prefix ?? STORE_DEFAULTS.prefix,
            commandTimeout: r.commandTimeout ?? STORE_DEFAULTS.commandTimeout,
          }
        : undefined,
    };
  }
  return { settings, diagnostics };
}

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}
