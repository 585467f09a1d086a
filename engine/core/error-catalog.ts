// The platform's error codes, in one place: every `code` the engine, a route or an error template
// answers, with its title, HTTP statuses and meaning. The engine names codes through CODE; lint
// refuses a code that is not here (did you mean...); docs/errors.md is generated from this table
// (`engine errors --docs docs/errors.md`), so callers need not infer a code from the answers.

import { didYouMean } from './diagnostics.ts';

export interface CatalogEntry {
  /** the title answered with the code */
  title: string;
  /** other titles it is answered with (a vendor's own wording, a 503) */
  otherTitles?: readonly string[];
  /** the HTTP statuses it is answered with */
  statuses: readonly number[];
  /** what causes it */
  cause: string;
  /** what a caller should do */
  action: string;
  /** where the engine answers it without a route naming it */
  engine?: readonly string[];
}

export const ERROR_CATALOG = {
  GC002: {
    title: 'Unauthorized',
    statuses: [401],
    cause:
      "The credentials were refused: the vendor rejected the connector's credentials (its 401, an invalid " +
      "client key), or a webhook's signature is missing, wrong or stale.",
    action:
      "Do not retry as is. An API caller reports it with the correlationId (the connector's credentials are " +
      'an operations matter); a webhook sender signs with the current secret and a fresh timestamp.',
    engine: ['`verify-signature` step'],
  },
  GC003: {
    title: 'Conflict',
    statuses: [409],
    cause:
      'The request conflicts with the state at the vendor (already cancelled, processed or muted; an ' +
      'idempotency key or reference reused for a different request), or the same input is being processed right ' +
      'now.',
    action:
      'Read the current state instead of repeating the request; with `Retry-After` (the same input in ' +
      'flight), retry after it.',
    engine: ['`dedupe` step: the same input in flight (`Retry-After: 5`)'],
  },
  GC004: {
    title: 'Forbidden',
    statuses: [403],
    cause: 'The vendor refused the operation for these credentials (not enrolled, a limit exceeded).',
    action: 'Do not retry; the entitlement or limit has to change first.',
  },
  GC025: {
    title: 'Validation error',
    otherTitles: ['Invalid workflow_type'],
    statuses: [400],
    cause:
      'The request is invalid: a schema or business rule failed (`errors[]` names each field as a JSON ' +
      'pointer), the body is not JSON or nests too deep, the URL path is malformed, or the vendor refused the ' +
      'request as invalid (its 400 or 422).',
    action: 'Correct the request as `detail` and `errors[]` say; the same request fails again.',
    engine: [
      '`validate` step',
      '`fail` step of kind `validation`',
      'HTTP source: a body that is not JSON or nests too deep',
      'HTTP listener: a malformed URL path',
      '`to-http`: a path parameter that cannot be sent',
      '`dedupe`: the key is missing',
      'gateway: a tool call without its path parameters',
    ],
  },
  GC027: {
    title: 'Generic Error',
    otherTitles: ['Service unavailable'],
    statuses: [502, 503, 504],
    cause:
      'The vendor failed: it could not be reached (502), did not answer in time (504), answered an error the ' +
      "connector has no mapping for, or a success that does not match the route's output schema (502); or the " +
      'event hub or the deduplication store did not accept the exchange (503).',
    action:
      'Retry later with backoff (a payment with the same idempotency key); after `Retry-After` when the ' +
      'answer has one. Persistent: report it with the correlationId.',
    engine: [
      'output check: an answer that does not match the `output-schema`',
      '`dedupe`: the store is unavailable (503, `Retry-After: 5`)',
    ],
  },
  GC031: {
    title: 'Too many requests',
    statuses: [429],
    cause: "The vendor is rate limiting the connector, still after the engine's retries.",
    action: "Wait as long as `Retry-After` says (the vendor's value, passed on), then retry.",
  },
  GC054: {
    title: 'Not found',
    statuses: [404],
    cause: 'The vendor has no such resource (payment order, standing order, batch, bank, exchange rate, alert).',
    action: 'Check the identifier; do not retry unchanged.',
  },
} as const satisfies Record<string, CatalogEntry>;

export type PlatformCode = keyof typeof ERROR_CATALOG;

/** The codes the engine answers itself, by meaning. */
export const CODE = {
  unauthorized: 'GC002',
  conflict: 'GC003',
  forbidden: 'GC004',
  validation: 'GC025',
  /** a vendor outage, an answer that does not map, an unavailable store or event hub */
  generic: 'GC027',
  tooManyRequests: 'GC031',
  notFound: 'GC054',
} as const satisfies Record<string, PlatformCode>;

const CODES = Object.keys(ERROR_CATALOG) as PlatformCode[];
/** The catalog with its entries read as CatalogEntry (optional members present or not). */
export const CATALOG_ENTRIES: Readonly<Record<PlatformCode, CatalogEntry>> = ERROR_CATALOG;

export function isPlatformCode(code: string): code is PlatformCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}

/**
 * Why `code` is no platform code, with what was probably meant; undefined for a catalog code.
 * `where` (e.g. "in the error template of route x") follows the code.
 */
export function unknownCode(code: string, where?: string): string | undefined {
  if (isPlatformCode(code)) return undefined;
  return `unknown platform code '${code}'${where ? ` ${where}` : ''}${codeSuggestion(code)} (see docs/errors.md)`;
}

/** `GC25` and `gc0025` mean GC025; a code one letter off; a title given for its code. */
function codeSuggestion(code: string): string {
  const digits = /^gc0*(\d{1,3})$/i.exec(code.trim());
  const padded = digits ? `GC${digits[1].padStart(3, '0')}` : undefined;
  if (padded && isPlatformCode(padded)) return `; did you mean '${padded}'?`;
  const near = CODES.filter((c) => distanceOne(code.toUpperCase(), c));
  if (near.length === 1) return `; did you mean '${near[0]}'?`;
  if (near.length > 1) return `; did you mean one of ${near.join(', ')}?`;
  const titles = (c: PlatformCode) => [CATALOG_ENTRIES[c].title, ...(CATALOG_ENTRIES[c].otherTitles ?? [])];
  const byTitle = new Map(CODES.flatMap((c) => titles(c).map((t) => [t, c] as const)));
  const title = didYouMean(code, byTitle.keys());
  if (title) return `; did you mean '${byTitle.get(title)}' (${title})?`;
  return `; the platform codes are ${CODES.map((c) => `${c} ${ERROR_CATALOG[c].title}`).join(', ')}`;
}

/** One substitution, insertion or deletion apart. */
function distanceOne(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
