// Errors of the engine. Every failure inside a route becomes a PlatformError so that
// on-exception handlers can match it by kind, HTTP status or vendor code and answer
// with RFC 9457 problem details. Their codes are those of the catalog (error-catalog.ts).

export type ErrorKind =
  | 'validation' // bad input from the caller (400)
  | 'unsupported-media' // wrong content type (415)
  | 'payload-too-large' // body over the limit (413)
  | 'not-found' // no route for the path (404)
  | 'unauthorized' // missing or bad credentials (401)
  | 'forbidden' // credentials fine, access not allowed (403)
  | 'rate-limited' // over a limit (429)
  | 'conflict' // the same input is already being processed (409)
  | 'vendor' // the vendor answered with an error status
  | 'timeout' // a vendor call timed out
  | 'connection' // a vendor call could not connect or was reset
  | 'eventhub' // the event hub did not accept an event
  | 'config' // a route or values problem found at run time
  | 'internal'; // a bug

export interface FieldError {
  /** JSON pointer-ish path of the field, e.g. `/transferTransactionInformation/instructedAmount/amount` */
  field: string;
  message: string;
  /** index of the entry for list payloads (batch entries) */
  index?: number;
}

export interface PlatformErrorInit {
  kind: ErrorKind;
  status?: number;
  code?: string;
  title?: string;
  detail?: string;
  errors?: FieldError[];
  /** HTTP status the vendor answered with */
  vendorStatus?: number;
  /** vendor error code or title extracted from the vendor body */
  vendorCode?: string;
  /** parsed vendor error body, kept for templates; never sent to the caller as is */
  vendorBody?: unknown;
  /** extra response headers, e.g. Retry-After */
  headers?: Record<string, string>;
  /** a later attempt may succeed (5xx, timeout, connection): message sources release instead of reject */
  transient?: boolean;
  /**
   * whether the request reached the vendor: true when it provably was not sent (connection
   * refused, no such host), so even a non-idempotent call may be repeated; false when the vendor
   * may have processed it (timeout or reset after sending); undefined when not a call failure
   */
  notSent?: boolean;
  /** extra members of the problem body */
  extensions?: Record<string, unknown>;
  /**
   * the call was refused before it was made, to spare a sick vendor (outbound/client-guard.ts):
   * answered 503 with Retry-After whatever code the error template gives it
   */
  refusedBy?: Refusal;
  /** why no retry follows though the failure is retryable (retry budget spent, deadline near) */
  noRetry?: string;
  cause?: unknown;
}

export type Refusal = 'circuit-breaker' | 'bulkhead';

const DEFAULT_STATUS: Record<ErrorKind, number> = {
  validation: 400,
  'unsupported-media': 415,
  'payload-too-large': 413,
  'not-found': 404,
  unauthorized: 401,
  forbidden: 403,
  'rate-limited': 429,
  conflict: 409,
  vendor: 502,
  timeout: 504,
  connection: 502,
  eventhub: 503,
  config: 500,
  internal: 500,
};

const DEFAULT_TITLE: Record<ErrorKind, string> = {
  validation: 'Validation error',
  'unsupported-media': 'Unsupported media type',
  'payload-too-large': 'Payload too large',
  'not-found': 'Not found',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  'rate-limited': 'Too many requests',
  conflict: 'Conflict',
  vendor: 'Vendor error',
  timeout: 'Vendor timeout',
  connection: 'Vendor unreachable',
  eventhub: 'Event hub unavailable',
  config: 'Configuration error',
  internal: 'Internal error',
};

export class PlatformError extends Error {
  readonly kind: ErrorKind;
  status: number;
  code?: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
  vendorStatus?: number;
  vendorCode?: string;
  vendorBody?: unknown;
  headers?: Record<string, string>;
  transient: boolean;
  readonly notSent?: boolean;
  extensions?: Record<string, unknown>;
  refusedBy?: Refusal;
  noRetry?: string;

  constructor(init: PlatformErrorInit) {
    super(init.detail ?? init.title ?? DEFAULT_TITLE[init.kind], { cause: init.cause });
    this.name = 'PlatformError';
    this.kind = init.kind;
    this.status = init.status ?? DEFAULT_STATUS[init.kind];
    this.code = init.code;
    this.title = init.title ?? DEFAULT_TITLE[init.kind];
    this.detail = init.detail;
    this.errors = init.errors;
    this.vendorStatus = init.vendorStatus;
    this.vendorCode = init.vendorCode;
    this.vendorBody = init.vendorBody;
    this.headers = init.headers;
    this.extensions = init.extensions;
    if (init.notSent !== undefined) this.notSent = init.notSent;
    if (init.refusedBy !== undefined) this.refusedBy = init.refusedBy;
    if (init.noRetry !== undefined) this.noRetry = init.noRetry;
    this.transient =
      init.transient ??
      (init.kind === 'timeout' ||
        init.kind === 'connection' ||
        init.kind === 'eventhub' ||
        init.kind === 'rate-limited' ||
        (init.kind === 'vendor' && (init.vendorStatus ?? 0) >= 500));
  }
}

/** Wraps anything thrown into a PlatformError; unknown errors become `internal`. */
export function toPlatformError(err: unknown): PlatformError {
  if (err instanceof PlatformError) return err;
  return new PlatformError({ kind: 'internal', detail: 'An unexpected error occurred', cause: err });
}

/** RFC 9457 problem details body for an error. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  correlationId?: string;
  instance?: string;
  errors?: FieldError[];
  [ext: string]: unknown;
}

export function problemOf(err: PlatformError, correlationId?: string, instance?: string): Problem {
  const p: Problem = {
    type: err.code ? `urn:platform:error:${err.code}` : 'about:blank',
    title: err.title,
    status: err.status,
  };
  if (err.detail) p.detail = err.detail;
  if (err.code) p.code = err.code;
  if (correlationId) p.correlationId = correlationId;
  if (instance) p.instance = instance;
  if (err.errors?.length) p.errors = err.errors;
  if (err.extensions) for (const [k, v] of Object.entries(err.extensions)) if (!(k in p)) p[k] = v;
  return p;
}
