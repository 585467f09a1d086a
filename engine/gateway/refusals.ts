// One place for what the gateway does when it refuses a request: count it (gateway_refusals_total,
// and gateway_tool_calls_total{outcome="refused"} for a tools/call) and log one `info` line with
// the reason, the subscription's name, the masked user, the client IP, the method, the tool and the
// correlation id. Refusals are the gateway doing its job, so `info`, not `warn`; alerts use the
// metric. The line never holds the key, the token or the Authorization header: only the fields
// named here are logged.

import type { Logger } from 'pino';
import { maskSecret } from '../observability/mask.ts';
import type { GatewayAudit } from './audit-hook.ts';
import type { ClientIp } from './client-ip.ts';
import type { Subscription } from './config.ts';
import { ANONYMOUS } from './jwt.ts';
import type { GatewayMetrics, RefusalDetail, RefusalReason, ToolMetrics } from './metrics.ts';
import type { GatewayRequest, GatewayResponse } from './rpc.ts';

export type Refused = {
  [R in RefusalReason]: {
    req: GatewayRequest;
    reason: R;
    detail: RefusalDetail<R>;
    sub?: Subscription;
    /** the user id (verified) or `anonymous`; logged masked */
    user?: string;
    method?: string;
    tool?: string;
  };
}[RefusalReason];

/** Longest client-chosen text (method, tool name) in a log line. */
const MAX_NAME = 64;
/** Refusals before the body is read as JSON-RPC peek into it for the method only up to this size. */
const PEEK_LIMIT = 8192;

export const REFUSED_MESSAGE = 'gateway: request refused';

export class Refusals {
  constructor(
    private metrics: GatewayMetrics,
    private log: Logger,
    private ip: ClientIp,
    /** the bound metrics of a tool name (served, else the one unknown label) */
    private toolOf: (name: string) => ToolMetrics,
    private audit: GatewayAudit,
  ) {}

  /** Counts and logs the refusal; returns its answer. */
  refuse(r: Refused, answer: GatewayResponse): GatewayResponse {
    let { method, tool } = r;
    if (method === undefined) ({ method, tool } = peek(r.req.body));
    this.metrics.refused(r.reason, r.detail as never);
    if (method === 'tools/call') this.toolOf(tool ?? '').refused.inc();
    const { req } = r;
    const clientIp = this.ip.of(req.remoteAddress, req.headers['x-forwarded-for']);
    this.log.info(
      {
        reason: r.reason,
        ...(r.detail ? { detail: r.detail } : {}),
        status: answer.status,
        subscription: r.sub?.name,
        user: r.user === undefined || r.user === ANONYMOUS ? r.user : maskSecret(r.user),
        clientIp,
        method: method?.slice(0, MAX_NAME),
        tool: tool?.slice(0, MAX_NAME),
        correlationId: req.correlationId,
      },
      REFUSED_MESSAGE,
    );
    // the trail keeps the user id unmasked: it answers "who", and it is no credential
    this.audit.record({
      kind: 'refusal',
      check: r.reason,
      outcome: 'refused',
      detail: `${answer.status}${r.detail ? ` ${r.detail}` : ''}${method ? ` ${method.slice(0, MAX_NAME)}` : ''}`,
      tool: tool?.slice(0, MAX_NAME),
      subscription: r.sub?.name,
      keyId: req.keyId,
      user: r.user,
      issuer: req.token?.iss,
      jti: req.token?.jti,
      correlationId: req.correlationId,
      clientIp,
    });
    return answer;
  }
}

/** The method and tool name of a body not parsed yet (a refusal before the JSON-RPC checks). */
function peek(body: string): { method?: string; tool?: string } {
  if (body.length > PEEK_LIMIT) return {};
  let msg: any;
  try {
    msg = JSON.parse(body);
  } catch {
    return {};
  }
  if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string') return {};
  const name = msg.method === 'tools/call' ? msg.params?.name : undefined;
  return { method: msg.method, tool: typeof name === 'string' ? name : undefined };
}
