// The parts of the OpenAPI document every operation shares: the RFC 9457 problem schema and the
// error responses built on it, the correlation id, the webhook signature headers, and the
// operations endpoints the listener always serves.

import { CODE } from '../core/error-catalog.ts';

type Json = Record<string, unknown>;

export const PROBLEM_SCHEMA: Json = {
  type: 'object',
  description: 'RFC 9457 problem details. Bad input names each field in `errors`.',
  required: ['type', 'title', 'status'],
  properties: {
    type: {
      type: 'string',
      format: 'uri-reference',
      description: '`urn:platform:error:<code>`, or `about:blank` without a platform code',
      examples: [`urn:platform:error:${CODE.validation}`],
    },
    title: { type: 'string', examples: ['Validation error'] },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string', format: 'uri-reference' },
    code: { type: 'string', description: 'platform code', examples: [CODE.validation] },
    correlationId: { type: 'string', description: 'the X-Correlation-Id of the exchange' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: {
          field: {
            type: 'string',
            description: 'JSON pointer of the field (`/query/...`, `/headers/...`, `/params/...` outside the body)',
            examples: ['/transferTransactionInformation/instructedAmount/currencyCode'],
          },
          message: { type: 'string', examples: ['is not an ISO 4217 currency code'] },
          index: { type: 'integer', description: 'entry of a list the error is about' },
        },
      },
    },
  },
  additionalProperties: true,
};

const CORRELATION_HEADER = { description: 'the correlation id of the exchange', schema: { type: 'string' } };

/** An error response: a problem document with the correlation id header. */
export const problemResponse = (description: string, headers?: Json): Json => ({
  description,
  headers: { 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' }, ...headers },
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** Named error responses, referenced as `#/components/responses/<name>`. */
export const PROBLEM_RESPONSES: Record<string, Json> = {
  BadRequest: problemResponse('bad input: every wrong field is named in `errors`; nothing reached a vendor'),
  Unauthorized: problemResponse('missing or invalid credentials or signature'),
  PayloadTooLarge: problemResponse("the body is larger than the route's limit"),
  UnsupportedMediaType: problemResponse('the body is not `application/json`'),
  TooManyRequests: problemResponse('rate limit reached', {
    'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } },
  }),
  ClientError: problemResponse('other client errors (not found, conflict, ...)'),
  ServerError: problemResponse('the vendor or the engine failed (vendor errors mapped to platform codes)'),
};

export const HEADERS: Record<string, Json> = { CorrelationId: CORRELATION_HEADER };

export const PARAMETERS: Record<string, Json> = {
  CorrelationId: {
    name: 'X-Correlation-Id',
    in: 'header',
    required: false,
    description:
      'echoed in the answer and the logs; generated when absent or not a token of 1 to 128 of `A-Za-z0-9._:-`',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
};

/** Standard Webhooks headers checked by the verify-signature step. */
export const SIGNATURE_PARAMETERS: Record<string, Json> = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'unique message id; a repeated id is answered without publishing again',
    schema: { type: 'string', minLength: 1 },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds; refused when outside the tolerance (300 s by default)',
    schema: { type: 'string', pattern: '^\\d{1,12}$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` with the shared secret (Standard Webhooks)',
    schema: { type: 'string', minLength: 1 },
  },
};

export const WEBHOOK_ACK: Json = {
  type: 'object',
  description:
    'the webhook was accepted: its event is published (or it was a duplicate or a type that is not published)',
  required: ['status'],
  properties: {
    status: { type: 'string', examples: ['published', 'accepted', 'duplicate', 'ignored'] },
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    events: { type: 'integer', description: 'events published' },
    webhookType: { type: 'string' },
  },
};

const ops = (operationId: string, summary: string, responses: Json): Json => ({
  operationId,
  summary,
  tags: ['operations'],
  security: [],
  responses,
});

export const OPERATIONS_PATHS: Record<string, Json> = {
  '/health/live': {
    get: ops('health-live', 'Liveness: the process answers', {
      '200': {
        description: 'alive',
        content: {
          'application/json': {
            schema: { type: 'object', required: ['status'], properties: { status: { const: 'UP' } } },
          },
        },
      },
    }),
  },
  '/health/ready': {
    get: ops('health-ready', 'Readiness: started and every dependency (brokers, stores) reachable', {
      '200': {
        description: 'ready',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
      },
      '503': {
        description: 'not ready',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
      },
    }),
  },
  '/metrics': {
    get: ops('metrics', 'Prometheus metrics', {
      '200': {
        description: 'metrics in the Prometheus text format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    }),
  },
  '/openapi.json': {
    get: ops('openapi', 'This OpenAPI document', {
      '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
    }),
  },
};

export const READINESS_SCHEMA: Json = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { enum: ['UP', 'DOWN'] },
    checks: { type: 'object', additionalProperties: { type: 'boolean' } },
  },
};
