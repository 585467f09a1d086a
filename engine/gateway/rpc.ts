// The gateway's answers: JSON-RPC results and errors, problem documents, and the request id read
// from a body that was not parsed (refusals decided on headers answer without a JSON parse).

import type { IncomingHttpHeaders } from 'node:http';
import { PlatformError, problemOf } from '../core/errors.ts';
import type { Context } from '@opentelemetry/api';

export type Id = string | number | null;

/** An HTTP request to the gateway's endpoint, as the MCP gateway (mcp.ts) reads it. */
export interface GatewayRequest {
  headers: IncomingHttpHeaders;
  body: string;
  remoteAddress?: string;
  correlationId: string;
  /** what the gateway learned of the call (set by mcp.ts, read by mcp-telemetry.ts) */
  call?: CallFacts;
  /** the request's telemetry (mcp-telemetry.ts), when the listener measures it */
  op?: McpOperation;
  /** who sent it, once known, for the audit trail (audit-hook.ts): the key's id, never the key */
  keyId?: string;
  /** the verified token's issuer and jti, and when the user signed in (ms), never the token */
  token?: { iss?: string; jti?: string; authTime?: number };
}

export interface GatewayResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
// 2026-07-28, basic/index "Error Codes": -32020..-32099 are the specification's own
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
// 2025-11-25 client/elicitation.mdx: the request waits for a URL mode elicitation
export const URL_ELICITATION_REQUIRED = -32042;

const JSON_HEADERS = { 'content-type': 'application/json' };

export function rpcError(id: Id, code: number, message: string, status = 200, data?: unknown): GatewayResponse {
  return {
    status,
    headers: { ...JSON_HEADERS },
    body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(data === undefined ? { code, message } : { code, message, data })}}`,
  };
}

/** A result; `headers` (with their content type) replace the plain JSON ones when given. */
export function rpcResult(id: Id, resultJson: string, headers?: Record<string, string>): GatewayResponse {
  return {
    status: 200,
    headers: headers ?? { ...JSON_HEADERS },
    body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`,
  };
}

export function problem(
  status: number,
  error: string,
  detail: string,
  correlationId: string,
  headers: Record<string, string> = {},
): GatewayResponse {
  const kind =
    status === 401
      ? 'unauthorized'
      : status === 403
        ? 'forbidden'
        : status === 429 || status === 503
          ? 'rate-limited'
          : status === 415
            ? 'unsupported-media'
            : 'validation';
  const p = problemOf(
    new PlatformError({
      kind,
      status,
      title: status === 406 ? 'Not acceptable' : status === 503 ? 'Service unavailable' : undefined,
      detail,
      extensions: { error },
    }),
    correlationId,
  );
  return {
    status,
    headers: { 'content-type': 'application/problem+json', 'x-correlation-id': correlationId, ...headers },
    body: JSON.stringify(p),
  };
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * The `id` of a JSON-RPC request body without parsing it: the value of the top-level `"id"` member
 * when it is a number or a string, else null. It walks the top level only, skipping nested values
 * by counting brackets outside strings, and builds no object: a refusal decided on the headers
 * (unsupported version, unknown method or tool) still answers with the request's id.
 */
export function scanId(body: string): Id {
  let i = 0;
  const n = body.length;
  while (i < n && isSpace(body.charCodeAt(i))) i++;
  if (body.charCodeAt(i) !== 123 /* { */) return null;
  i++;
  let depth = 1;
  let expectKey = true;
  while (i < n && depth > 0) {
    const c = body.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      i++;
      while (i < n && body.charCodeAt(i) !== 34) i += body.charCodeAt(i) === 92 ? 2 : 1;
      i++;
      if (depth === 1 && expectKey) {
        if (i - start === 4 && body.startsWith('"id"', start)) {
          while (i < n && isSpace(body.charCodeAt(i))) i++;
          if (body.charCodeAt(i) !== 58 /* : */) return null;
          i++;
          while (i < n && isSpace(body.charCodeAt(i))) i++;
          return idToken(body, i);
        }
        expectKey = false;
      }
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    else if (c === 44 && depth === 1) expectKey = true;
    i++;
  }
  return null;
}

/** A number or string token at `i` (the value of `"id"`), else null. */
function idToken(body: string, i: number): Id {
  let j = i;
  if (body.charCodeAt(i) === 34) {
    j++;
    while (j < body.length && body.charCodeAt(j) !== 34) j += body.charCodeAt(j) === 92 ? 2 : 1;
    j++;
  } else {
    while (j < body.length && /[-+0-9.eE]/.test(body[j])) j++;
  }
  if (j === i || j - i > 256) return null;
  try {
    const v = JSON.parse(body.slice(i, j));
    return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null;
  } catch {
    return null;
  }
}

/** What the gateway knows of a request once it is read (engine/gateway/mcp-telemetry.ts traces it). */
export interface CallFacts {
  method: string;
  name?: string;
  id: Id;
  hasId: boolean;
  version: string;
  msg?: any;
}

/** The telemetry of one request (mcp-telemetry.ts). */
export interface McpOperation {
  /** the parent context of the tool's route (a tool call's span, started now) */
  toolCall(c: CallFacts, toolName: string): Context | undefined;
  /** a tools/call whose result has isError: true */
  toolFailed(): void;
  end(out: GatewayResponse): void;
}
