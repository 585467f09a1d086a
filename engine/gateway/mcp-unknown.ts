// 2026-07-28: a request whose Mcp-Method names a method the gateway does not serve, or whose Mcp-Name
// names a tool it does not serve, is decided on its headers (404 -32601, "Unknown tool"); but when the
// body says otherwise, the headers disagree with the body, and "Servers that process the request body
// MUST reject requests where the values specified in the headers do not match the corresponding values
// in the request body" (400, -32020 HeaderMismatch) comes first. Only these answers pay for the parse.

import { jsonDeeperThan } from '../http/json-depth.ts';
import { HEADER_MISMATCH, rpcError, type GatewayResponse } from './rpc.ts';

const isId = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * The HeaderMismatch answer when the body (a JSON-RPC object) names another method than `method`,
 * or, for tools/call, another tool than `name`; undefined when it agrees or cannot be read (the
 * header-based answer stands).
 */
export function unknownNameMismatch(
  body: string,
  depthLimit: number,
  method: string,
  name?: string,
): GatewayResponse | undefined {
  if (jsonDeeperThan(body, depthLimit)) return undefined;
  let msg: any;
  try {
    msg = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return undefined;
  const id = isId(msg.id) ? msg.id : null;
  if (msg.method !== method)
    return rpcError(
      id,
      HEADER_MISMATCH,
      "Header mismatch: the Mcp-Method header does not match the body's method",
      400,
    );
  if (name !== undefined && msg.params?.name !== name)
    return rpcError(
      id,
      HEADER_MISMATCH,
      "Header mismatch: the Mcp-Name header does not match the body's params.name",
      400,
    );
  return undefined;
}
