// Config pieces shared by the steps that call out (to-http, to-eventhub): timeouts and retries.
// Values may come in as strings (`--set`, environment), so numbers and flags are coerced here.

import { parseStatuses, type RetrySettings } from '../outbound/retry.ts';
import type { Timeouts } from '../outbound/http-client.ts';

/** On a to-http config merged from a client profile: the properties its base-url came from (for messages). */
export const BASE_URL_PROPERTIES = Symbol('base-url properties');

const num = {
  anyOf: [
    { type: 'number', minimum: 0 },
    { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
  ],
};
const bool = { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }] };

export const timeoutsSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'milliseconds',
  properties: {
    connect: { ...num, default: 5000, description: 'TCP/TLS connect, ms (http.client.connect.timeout)' },
    request: {
      ...num,
      default: 10000,
      description: 'leasing a pooled connection and sending the request, ms (http.client.request.timeout)',
    },
    response: {
      ...num,
      default: 15000,
      description: 'from the start of the call until the response headers arrive, ms (http.client.response.timeout)',
    },
    socket: {
      ...num,
      default: 10000,
      description: 'idle time between chunks of the body, ms (http.client.socket.timeout)',
    },
  },
};

export const retrySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'retry on connection failure and the listed statuses, with exponential backoff',
  properties: {
    enabled: { ...bool, default: false, description: 'retry at all (retryFlag)' },
    'max-retries': {
      ...num,
      default: 0,
      description: 'retries after the first attempt (maximumRedeliveries, redelivery.maximumRetries)',
    },
    delay: {
      ...num,
      default: 200,
      description: 'pause before the first retry, ms (redeliveryDelay, redelivery.delay)',
    },
    multiplier: { ...num, default: 2, description: 'factor between one pause and the next (backOffMultiplier)' },
    statuses: {
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'integer' } }, { type: 'integer' }],
      description:
        'HTTP statuses retried besides connection failures: a list or "429,502,503" (retryStatuses); none by default',
    },
    'max-delay': { ...num, description: 'longest pause, ms (no limit by default)' },
  },
};

export interface TimeoutsConfig {
  connect?: number | string;
  request?: number | string;
  response?: number | string;
  socket?: number | string;
}
export interface RetryConfig {
  enabled?: boolean | string;
  'max-retries'?: number | string;
  delay?: number | string;
  multiplier?: number | string;
  statuses?: string | number | number[];
  'max-delay'?: number | string;
}

export function toTimeouts(c: TimeoutsConfig | undefined, d: Timeouts): Timeouts {
  return {
    connect: c?.connect !== undefined ? Number(c.connect) : d.connect,
    request: c?.request !== undefined ? Number(c.request) : d.request,
    response: c?.response !== undefined ? Number(c.response) : d.response,
    socket: c?.socket !== undefined ? Number(c.socket) : d.socket,
  };
}

/** Like toRetrySettings, failing lint when `statuses` holds anything but HTTP statuses. */
export function checkedRetrySettings(
  c: RetryConfig | undefined,
  fail: (message: string, path: (string | number)[]) => never,
): RetrySettings {
  const s = toRetrySettings(c);
  const raw = c?.statuses;
  if (raw !== undefined && raw !== '') {
    const entries = Array.isArray(raw) ? raw : String(raw).split(',');
    if (entries.length !== s.statuses.length)
      fail(`retry statuses '${String(raw)}' must be HTTP statuses separated by commas (form: 429,502,503)`, [
        'retry',
        'statuses',
      ]);
  }
  return s;
}

function toRetrySettings(c: RetryConfig | undefined): RetrySettings {
  return {
    enabled: c?.enabled === true || c?.enabled === 'true',
    maxRetries: Number(c?.['max-retries'] ?? 0),
    delay: Number(c?.delay ?? 200),
    multiplier: Number(c?.multiplier ?? 2),
    statuses: parseStatuses(c?.statuses),
    maxDelay: c?.['max-delay'] !== undefined ? Number(c['max-delay']) : undefined,
  };
}

/** `outbox:` of a step or of its event hub profile's `event:` (a placeholder gives 'true' or 'false'). */
export const OUTBOX_SCHEMA = {
  anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }],
  description:
    'write the event to the durable outbox and answer the input once it is written; the engine publishes it (default: true for routes served over HTTP, i.e. webhooks; false for AMQP and cron, whose input is durable already)',
};
