// The Gateway page's try-it form: calls a tool through the engine's own POST /mcp, over HTTP as
// an agent would (initialize, then tools/call, MCP revision 2025-11-25), and returns the whole
// JSON-RPC exchange for the page to show, with the subscription key and token masked. The page
// cannot call /mcp itself: the gateway refuses browser origins it was not told to allow.

import { compileSecrets, maskSecret, maskText, type Secrets } from '../observability/mask.ts';

const TRY_PROTOCOL_VERSION = '2025-11-25';

export interface TryInput {
  key: string;
  token?: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface TryStep {
  method: string;
  request: { headers: Record<string, string>; body: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

/** Checks the form's JSON; a message naming the bad field, or the input. */
export function parseTryInput(v: unknown): TryInput | string {
  const b = (v && typeof v === 'object' && !Array.isArray(v) ? v : undefined) as Record<string, unknown> | undefined;
  if (!b) return 'the body must be a JSON object {key, token?, tool, arguments}';
  if (typeof b.key !== 'string' || !b.key.trim()) return "'key' is required: a subscription key";
  if (b.token !== undefined && b.token !== null && typeof b.token !== 'string') return "'token' must be a string";
  if (typeof b.tool !== 'string' || !/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(b.tool)) return "'tool' must be a tool name";
  const args = b.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return "'arguments' must be a JSON object";
  return {
    key: b.key.trim(),
    token: typeof b.token === 'string' && b.token.trim() ? b.token.trim() : undefined,
    tool: b.tool,
    arguments: args as Record<string, unknown>,
  };
}

export async function tryTool(engineUrl: string, input: TryInput): Promise<TryStep[]> {
  const secrets = compileSecrets([input.key, ...(input.token ? [input.token] : [])]);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'ocp-gateway-subscription-key': input.key,
    ...(input.token ? { authorization: `Bearer ${input.token}` } : {}),
  };
  const steps: TryStep[] = [];
  const post = async (method: string, body: Record<string, unknown>, extra: Record<string, string> = {}) => {
    const h = { ...headers, ...extra };
    const res = await fetch(`${engineUrl}/mcp`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* shown as text */
    }
    steps.push({
      method,
      request: { headers: masked(h, secrets), body },
      response: {
        status: res.status,
        headers: masked(Object.fromEntries(res.headers), secrets),
        body: maskDeepText(parsed, secrets),
      },
    });
    return res.ok;
  };
  const ok = await post('initialize', {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: TRY_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'engine-console', version: '1.0.0' },
    },
  });
  if (!ok) return steps;
  const v = { 'mcp-protocol-version': TRY_PROTOCOL_VERSION };
  await post('notifications/initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }, v);
  await post(
    'tools/call',
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: input.tool, arguments: input.arguments } },
    v,
  );
  return steps;
}

function masked(h: Record<string, string>, secrets: Secrets): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    out[k] = k === 'ocp-gateway-subscription-key' || k === 'authorization' ? maskSecret(v) : maskText(v, secrets);
  return out;
}

function maskDeepText(v: unknown, secrets: Secrets): unknown {
  if (typeof v === 'string') return maskText(v, secrets, 100_000);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => maskDeepText(x, secrets));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskDeepText(x, secrets)]));
}
