// What the steps that take a client profile (`client: <name>`, to-http and to-eventhub) share
// with the profiles' loader (dsl/clients.ts): how a profile's settings go under a step's own, and
// how a path joins a base URL.

export type Settings = Record<string, any>;

/** A client profile as a step's `withClient` hook receives it: found, checked and resolved. */
export interface ClientProfile {
  name: string;
  settings: Settings;
  /** the file defining it: with the name, the key of its circuit breaker, bulkhead and retry budget */
  file?: string;
}

const MAPS = ['headers', 'static-headers'];
const OBJECTS = ['timeouts', 'retry', 'event', 'circuit-breaker', 'bulkhead', 'retry-budget'];

/** Profile keys only an HTTP client uses: an event hub profile (with `event:`) cannot set them. */
export const HTTP_ONLY = ['headers', 'static-headers', 'forward-headers', 'proxy', 'connections', 'idempotency-header'];

/**
 * `over` on top of `base`: header maps merge by lower-cased name, timeouts and retry by key, forwarded
 * headers join.
 */
export function mergeSettings(base: Settings, over: Settings): Settings {
  const out: Settings = { ...base, ...over };
  for (const k of MAPS) {
    if (!base[k] || !over[k]) continue;
    const names = new Set(Object.keys(over[k]).map((h) => h.toLowerCase()));
    out[k] = {
      ...Object.fromEntries(Object.entries(base[k]).filter(([h]) => !names.has(h.toLowerCase()))),
      ...over[k],
    };
  }
  for (const k of OBJECTS) if (base[k] && over[k]) out[k] = { ...base[k], ...over[k] };
  if (base['forward-headers'] && over['forward-headers']) {
    out['forward-headers'] = [
      ...new Set([...base['forward-headers'], ...over['forward-headers']].map((h: string) => h.toLowerCase())),
    ];
  }
  return out;
}

/** `path` appended to the base URL with exactly one '/' between them. */
export function joinUrl(base: string, path: string): string {
  if (!path) return base;
  if (path.startsWith('?')) return base + path;
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

/** The profile a step's `client:` names, for its `references` hook. */
export function clientReference(config: unknown): { to: 'client'; name: string; at: string[] }[] {
  const c = config as { client?: unknown } | null;
  if (!c || typeof c !== 'object' || typeof c.client !== 'string') return [];
  return [{ to: 'client', name: c.client, at: ['client'] }];
}
