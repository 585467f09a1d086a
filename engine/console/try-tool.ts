// The Gateway page's try-it form: calls a tool through the engine's own POST /mcp, over HTTP as
// an agent would (initialize, then tools/call, MCP revision 2025-11-25), and returns the whole
// JSON-RPC exchange for the page to show, with the subscription key and token masked. The page
// cannot call /mcp itself: the gateway refuses browser origins it was not told to allow.
// A tool declared `confirm: required` is called as a 2026-07-28 client with form elicitation
// calls it: the first call answers `input_required` with what the user confirms (the page shows
// it with Confirm and Refuse), and the answer is the same call again with `inputResponses` and the
// `requestState` echoed, so a confirmed payment is made once. 2025-11-25 without URL elicitation
// could only answer "confirmation required".

import { compileSecrets, maskSecret, maskText, type Secrets } from '../observability/mask.ts';
import type { ParamHeader } from '../gateway/mcp-headers.ts';

const TRY_PROTOCOL_VERSION = '2025-11-25';
const CONFIRM_PROTOCOL_VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'engine-console', version: '1.0.0' };

export interface TryInput {
  key: string;
  token?: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** the person's answer to the confirmation the gateway asked for (its requestState echoed) */
  confirmation?: { requestState: string; decision: 'confirm' | 'refuse' };
}

/** What the form needs to know of the served tool. */
export interface TryTool {
  /** declared `confirm: required`: called in 2026-07-28 with form elicitation */
  confirm: boolean;
  /** arguments 2026-07-28 requests mirror into Mcp-Param-{Name} headers */
  paramHeaders: ParamHeader[];
}

export interface TryStep {
  method: string;
  request: { headers: Record<string, string>; body: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
  /**
   * an input_required answer's requestState as the gateway sent it, for the retry to echo: the
   * masked body shows it cut (it looks like a JWT), and it holds no secret (a signed binding of the
   * tool, user, subscription and arguments' digest, useless without the key and the token)
   */
  requestState?: string;
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
  const c = b.confirmation as Record<string, unknown> | undefined | null;
  if (c !== undefined && c !== null) {
    if (typeof c !== 'object' || Array.isArray(c))
      return "'confirmation' must be a JSON object {requestState, decision}";
    if (typeof c.requestState !== 'string' || !c.requestState || c.requestState.length > 4096)
      return "'confirmation.requestState' must be the requestState the gateway answered";
    if (c.decision !== 'confirm' && c.decision !== 'refuse') return "'confirmation.decision' must be confirm or refuse";
  }
  return {
    key: b.key.trim(),
    token: typeof b.token === 'string' && b.token.trim() ? b.token.trim() : undefined,
    tool: b.tool,
    arguments: args as Record<string, unknown>,
    ...(c
      ? { confirmation: { requestState: c.requestState as string, decision: c.decision as 'confirm' | 'refuse' } }
      : {}),
  };
}

export async function tryTool(engineUrl: string, input: TryInput, tool?: TryTool): Promise<TryStep[]> {
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
      ...(inputRequired(parsed) ? { requestState: (parsed as any).result.requestState } : {}),
    });
    return res.ok;
  };
  if (tool?.confirm) {
    await post('tools/call', confirmCall(input), {
      'mcp-protocol-version': CONFIRM_PROTOCOL_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': input.tool,
      ...mirroredHeaders(tool.paramHeaders, input.arguments),
    });
    return steps;
  }
  const ok = await post('initialize', {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: TRY_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
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

/** A 2026-07-28 tools/call declaring form elicitation; with the person's answer when there is one. */
function confirmCall(input: TryInput): Record<string, unknown> {
  const c = input.confirmation;
  // the form's one boolean ticked, or a decline (confirmation.ts reads both)
  const answer = c?.decision === 'confirm' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  return {
    jsonrpc: '2.0',
    id: c ? 2 : 1,
    method: 'tools/call',
    params: {
      name: input.tool,
      arguments: input.arguments,
      ...(c ? { inputResponses: { confirm: answer }, requestState: c.requestState } : {}),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': CONFIRM_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  };
}

/**
 * The Mcp-Param-{Name} headers of the arguments given: plain visible ASCII as it is, anything else
 * in the Base64 sentinel form (`=?base64?...?=`) the gateway decodes before comparing.
 */
function mirroredHeaders(params: ParamHeader[], args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) {
    const v = p.path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as any)[k] : undefined), args);
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
    const s = String(v);
    const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(s) && !(s.startsWith('=?base64?') && s.endsWith('?='));
    out[p.header] = plain ? s : `=?base64?${Buffer.from(s).toString('base64')}?=`;
  }
  return out;
}

const inputRequired = (v: unknown): boolean =>
  (v as any)?.result?.resultType === 'input_required' && typeof (v as any).result.requestState === 'string';

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
