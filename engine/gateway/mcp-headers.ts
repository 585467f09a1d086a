// The protocol revisions the gateway serves and the request headers of MCP 2026-07-28
// (basic/transports/streamable-http.mdx, "Request Metadata"): MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and the Mcp-Param-{Name} headers of `x-mcp-header` tool parameters, with the Base64
// sentinel form `=?base64?...?=`. Everything here reads headers only; the comparison with the body
// runs once the body is parsed. Earlier revisions require none of these headers, but one that is
// sent is compared all the same: a proxy in front may route or filter on it, and a header that
// disagrees with the body would let a client slip past it.

import type { IncomingHttpHeaders } from 'node:http';

/** Per-request `_meta` revisions, served statelessly (no initialize). */
export const MODERN_VERSIONS = ['2026-07-28'];
/** Revisions that open with `initialize` (served as before). */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const SUPPORTED_PROTOCOL_VERSIONS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];
// "A server that supports clients implementing protocol versions earlier than 2025-06-18 ... MAY
// treat a request that omits the header as protocol version 2025-03-26."
export const VERSION_WITHOUT_HEADER = '2025-03-26';
/** Revisions without `structuredContent` in tool results (it came with 2025-06-18). */
export const WITHOUT_STRUCTURED_CONTENT = new Set(['2025-03-26', '2024-11-05']);

/** Methods whose `params.name` (or `params.uri`) the Mcp-Name header mirrors. */
// the tasks extension: "the client MUST set the Mcp-Name header to the value of params.taskId"
const NAMED_METHODS = new Set([
  'tools/call',
  'resources/read',
  'prompts/get',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

/** The body member a method's Mcp-Name header names. */
export const nameField = (method: string): string =>
  method === 'resources/read' ? 'uri' : method.startsWith('tasks/') ? 'taskId' : 'name';

/** The `_meta` keys of a 2026-07-28 request (basic/index.mdx, "Per-request protocol fields"). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** RFC 9110 token (field names): what an `x-mcp-header` value may be. */
export const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, space and tab: a header value the sentinel form did not need. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';

/** A tool parameter mirrored into a header (`x-mcp-header`), resolved when the tools load. */
export interface ParamHeader {
  /** the chain of `properties` keys from the input schema's root */
  path: string[];
  /** lower-case header name: `mcp-param-<name>` */
  header: string;
  /** the `x-mcp-header` value as declared */
  name: string;
  type: 'string' | 'integer' | 'boolean';
}

export function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A mirrored header's value, Base64 sentinel decoded ("Servers MUST decode an encoded Mcp-Name or
 * Mcp-Param-{Name} value before comparing it to the corresponding request body value"), or
 * undefined when it holds invalid characters or an invalid encoding.
 */
function decodeHeaderValue(raw: string): string | undefined {
  if (!PLAIN_VALUE.test(raw)) return undefined;
  if (!(
    raw.startsWith(SENTINEL_START) &&
    raw.endsWith(SENTINEL_END) &&
    raw.length >= SENTINEL_START.length + SENTINEL_END.length
  ))
    return raw;
  const b64 = raw.slice(SENTINEL_START.length, raw.length - SENTINEL_END.length);
  if (!BASE64.test(b64)) return undefined;
  const bytes = Buffer.from(b64, 'base64');
  const text = bytes.toString('utf8');
  // invalid UTF-8 decodes to U+FFFD and does not encode back to the same bytes
  return Buffer.byteLength(text) === bytes.length && Buffer.from(text).equals(bytes) ? text : undefined;
}

export interface ModernHeaders {
  method: string;
  /** decoded Mcp-Name (methods that name a tool, resource or prompt) */
  name?: string;
}

/** Mcp-Method and Mcp-Name as required (a string), or why not (a HeaderMismatch message). */
export function readModernHeaders(h: IncomingHttpHeaders): ModernHeaders | string {
  const method = header(h, 'mcp-method');
  if (method === undefined || method === '') return 'Header mismatch: the Mcp-Method header is required';
  if (!PLAIN_VALUE.test(method)) return 'Header mismatch: the Mcp-Method header holds invalid characters';
  if (!NAMED_METHODS.has(method)) return { method };
  const raw = header(h, 'mcp-name');
  if (raw === undefined || raw === '') return `Header mismatch: the Mcp-Name header is required for ${method}`;
  const name = decodeHeaderValue(raw);
  if (name === undefined)
    return 'Header mismatch: the Mcp-Name header holds invalid characters or an invalid =?base64?...?= value';
  return { method, name };
}

/** The value at a chain of property keys, or undefined. */
function at(args: Record<string, unknown>, path: string[]): unknown {
  let v: unknown = args;
  for (const k of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, k))
      return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/**
 * Why the Mcp-Param-* headers of a tools/call do not match its arguments, or undefined when they do
 * ("Server MUST validate header matches body"; a value in the body without its header is a
 * non-conforming client the server "MUST reject"; integers compare numerically).
 */
export function paramHeaderMismatch(
  params: ParamHeader[],
  args: Record<string, unknown>,
  h: IncomingHttpHeaders,
  sentOnly = false,
): string | undefined {
  for (const p of params) {
    const raw = header(h, p.header);
    // before 2026-07-28 a header not sent is not required
    if (raw === undefined && sentOnly) continue;
    const value = at(args, p.path);
    const display = `Mcp-Param-${p.name}`;
    if (value === undefined || value === null) {
      if (raw !== undefined)
        return `Header mismatch: ${display} is sent but the argument ${p.path.join('.')} is absent`;
      continue;
    }
    if (raw === undefined)
      return `Header mismatch: the ${display} header is required when the argument ${p.path.join('.')} is given`;
    const got = decodeHeaderValue(raw);
    if (got === undefined)
      return `Header mismatch: ${display} holds invalid characters or an invalid =?base64?...?= value`;
    const same =
      typeof value === 'string'
        ? got === value
        : typeof value === 'boolean'
          ? got === String(value)
          : typeof value === 'number'
            ? got.trim() !== '' && Number(got) === value
            : false;
    if (!same) return `Header mismatch: ${display} header value does not match the argument ${p.path.join('.')}`;
  }
  return undefined;
}

/**
 * Before 2026-07-28: why the Mcp-Method, Mcp-Name or Mcp-Param-* headers a client sent disagree
 * with its parsed request, or undefined (headers not sent are fine; the messages are those of
 * 2026-07-28). `params` are the x-mcp-header parameters of the called tool, if any.
 */
export function sentHeaderMismatch(
  h: IncomingHttpHeaders,
  msg: { method: string; params?: any },
  params: ParamHeader[] = [],
): string | undefined {
  const method = header(h, 'mcp-method');
  if (method !== undefined && method !== msg.method)
    return "Header mismatch: the Mcp-Method header does not match the body's method";
  const raw = header(h, 'mcp-name');
  if (raw !== undefined && NAMED_METHODS.has(msg.method)) {
    const name = decodeHeaderValue(raw);
    if (name === undefined)
      return 'Header mismatch: the Mcp-Name header holds invalid characters or an invalid =?base64?...?= value';
    const field = nameField(msg.method);
    if (name !== msg.params?.[field])
      return `Header mismatch: the Mcp-Name header does not match the body's params.${field}`;
  }
  const args = msg.params?.arguments;
  if (!params.length || args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
  return paramHeaderMismatch(params, args, h, true);
}
