// The client profile keys that protect a vendor (`circuit-breaker`, `bulkhead`, `retry-budget`):
// their schema (in clients.yaml, values may set each number), their checks with the allowed
// ranges, and how a step naming the profile gets them. They belong to the client, not to a step:
// `withClient` takes them out of the merged config and hands the step the client's guard key
// (outbound/client-guard.ts keeps one guard per profile, shared by every step calling it).

import { basename, dirname } from 'node:path';
import { parseStatuses } from '../outbound/retry.ts';
import { DEFAULT_BUDGET } from '../outbound/retry-budget.ts';
import type { GuardSettings } from '../outbound/client-guard.ts';
import type { ClientProfile, Settings } from './client-profile.ts';

const num = {
  anyOf: [{ type: 'number' }, { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' }],
};
const bool = { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }] };

const BREAKER_DEFAULTS = { failures: 5, window: 30_000, minCalls: 20, halfOpenAfter: 10_000 };
const BULKHEAD_DEFAULTS = { maxQueue: 0, queueTimeout: 1000 };

export const circuitBreakerSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'open after `failures` consecutive failures (no answer, a timeout, a 5xx or a retry status; never a 4xx) or a failure `ratio` over `window`; while open, calls fail at once (503, Retry-After) without a vendor call; one probe after `half-open-after`',
  properties: {
    enabled: { ...bool, default: true, description: 'the breaker is on (default true where the key is given)' },
    failures: { ...num, default: BREAKER_DEFAULTS.failures, description: 'consecutive failures that open it (>= 1)' },
    ratio: {
      ...num,
      description: 'failure ratio over `window` that opens it (0 < ratio <= 1); none by default',
    },
    window: { ...num, default: BREAKER_DEFAULTS.window, description: 'ms the failure ratio is taken over (>= 1000)' },
    'min-calls': {
      ...num,
      default: BREAKER_DEFAULTS.minCalls,
      description: 'calls in the window before the ratio counts (>= 1)',
    },
    'half-open-after': {
      ...num,
      default: BREAKER_DEFAULTS.halfOpenAfter,
      description: 'ms the breaker stays open before one probe call (>= 100)',
    },
  },
};

export const bulkheadSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['max-concurrent'],
  description:
    'most calls to the client at once and a bounded queue; a call beyond both fails at once (503, Retry-After) without a vendor call',
  properties: {
    'max-concurrent': { ...num, description: 'calls under way at once (>= 1)' },
    'max-queue': { ...num, default: BULKHEAD_DEFAULTS.maxQueue, description: 'calls waiting for a place (>= 0)' },
    'queue-timeout': {
      ...num,
      default: BULKHEAD_DEFAULTS.queueTimeout,
      description: 'ms a call waits for a place before it is refused (>= 1)',
    },
  },
};

export const retryBudgetSchema = {
  type: 'object',
  additionalProperties: false,
  description: `retries to the client are at most \`ratio\` of its calls over \`window\` plus \`min-per-second\`; the retry settings decide each call's retries within it (default ratio ${DEFAULT_BUDGET.ratio}, window ${DEFAULT_BUDGET.window} ms, ${DEFAULT_BUDGET.minPerSecond} per second)`,
  properties: {
    ratio: { ...num, default: DEFAULT_BUDGET.ratio, description: 'retries as a share of calls (0..1)' },
    window: { ...num, default: DEFAULT_BUDGET.window, description: 'ms (>= 1000)' },
    'min-per-second': {
      ...num,
      default: DEFAULT_BUDGET.minPerSecond,
      description: 'retries per second always allowed (>= 0)',
    },
  },
};

/** The profile keys above, which a step may not set. */
export const GUARD_KEYS = ['circuit-breaker', 'bulkhead', 'retry-budget'] as const;

/** On a step config merged from a client profile: what its guard is made of. */
export const CLIENT_GUARD = Symbol('client guard');

export interface GuardRef {
  key: string;
  label: string;
  file: string;
  settings: GuardSettings;
}

/** Told of each problem; the setting then takes its default. */
type Fail = (message: string, path: (string | number)[]) => void;

/** A number of the config in a range, or a failure naming the key and what is allowed. */
function number(
  v: unknown,
  dflt: number,
  path: (string | number)[],
  fail: Fail,
  check: (n: number) => boolean,
  allowed: string,
): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (Number.isFinite(n) && check(n)) return n;
  fail(`${String(path.at(-1))} must be ${allowed}, got ${String(v)}`, path);
  return dflt;
}

const int = (min: number) => (n: number) => Number.isInteger(n) && n >= min;

/** The guard of a profile's settings (resolved), checked: `fail` is told of each problem at its key. */
export function toGuardSettings(s: Settings, fail: Fail): GuardSettings {
  const b = s['circuit-breaker'] as Record<string, unknown> | undefined;
  const h = s.bulkhead as Record<string, unknown> | undefined;
  const r = s['retry-budget'] as Record<string, unknown> | undefined;
  const out: GuardSettings = { budget: { ...DEFAULT_BUDGET }, statuses: parseStatuses(s.retry?.statuses) };
  if (b && b.enabled !== false && b.enabled !== 'false') {
    const at = (k: string) => ['circuit-breaker', k];
    const ratio =
      b.ratio === undefined
        ? undefined
        : number(b.ratio, 0, at('ratio'), fail, (n) => n > 0 && n <= 1, 'a ratio over 0 and at most 1');
    out.breaker = {
      failures: number(b.failures, BREAKER_DEFAULTS.failures, at('failures'), fail, int(1), 'an integer >= 1'),
      window: number(b.window, BREAKER_DEFAULTS.window, at('window'), fail, int(1000), 'an integer of ms >= 1000'),
      minCalls: number(b['min-calls'], BREAKER_DEFAULTS.minCalls, at('min-calls'), fail, int(1), 'an integer >= 1'),
      halfOpenAfter: number(
        b['half-open-after'],
        BREAKER_DEFAULTS.halfOpenAfter,
        at('half-open-after'),
        fail,
        int(100),
        'an integer of ms >= 100',
      ),
      ...(ratio !== undefined ? { ratio } : {}),
    };
  }
  if (h) {
    const at = (k: string) => ['bulkhead', k];
    out.bulkhead = {
      maxConcurrent: number(h['max-concurrent'], 1, at('max-concurrent'), fail, int(1), 'an integer >= 1'),
      maxQueue: number(h['max-queue'], BULKHEAD_DEFAULTS.maxQueue, at('max-queue'), fail, int(0), 'an integer >= 0'),
      queueTimeout: number(
        h['queue-timeout'],
        BULKHEAD_DEFAULTS.queueTimeout,
        at('queue-timeout'),
        fail,
        int(1),
        'an integer of ms >= 1',
      ),
    };
  }
  if (r) {
    const at = (k: string) => ['retry-budget', k];
    out.budget = {
      ratio: number(r.ratio, DEFAULT_BUDGET.ratio, at('ratio'), fail, (n) => n >= 0 && n <= 1, 'a ratio from 0 to 1'),
      window: number(r.window, DEFAULT_BUDGET.window, at('window'), fail, int(1000), 'an integer of ms >= 1000'),
      minPerSecond: number(
        r['min-per-second'],
        DEFAULT_BUDGET.minPerSecond,
        at('min-per-second'),
        fail,
        (n) => n >= 0,
        'a number >= 0',
      ),
    };
  }
  return out;
}

/**
 * For a step's `withClient`: the merged config without the guard keys, carrying the guard of the
 * profile instead. Its key is the defining file and name; metrics and the console name it
 * `<folder>/<name>`.
 */
export function withGuard(p: ClientProfile, merged: Settings): Settings {
  // a step's own key of these fails its schema (they are the client's, shared by every step calling it)
  for (const k of GUARD_KEYS) delete merged[k];
  if (!p.file) return merged;
  // checked where the profile is defined (dsl/clients.ts): a broken profile never gets here
  const settings = toGuardSettings(p.settings, () => {});
  const ref: GuardRef = {
    key: `${p.file}#${p.name}`,
    label: `${basename(dirname(p.file))}/${p.name}`,
    file: p.file,
    settings,
  };
  (merged as Record<symbol, unknown>)[CLIENT_GUARD] = ref;
  return merged;
}
