// Gateway metrics on the engine's registry: tool calls by tool and outcome, their latency, and
// refusals by reason and detail. Every label set is bound once (at start, or once per tool name),
// so a request costs a counter addition; label values come from fixed lists and the served tools'
// names only, so no client input can create a series.

import type { Registry } from 'prom-client';
import { FastCounter, FastHistogram, type CounterChild, type HistogramChild } from '../observability/metric-types.ts';
import { TOKEN_CHECKS } from './jwt.ts';

/** The tool label of a name that is no served tool (tool names start with a letter: no clash). */
export const UNKNOWN_TOOL = '(unknown)';

/** Which rate limit refused a request (the `detail` of reason `rate_limited`). */
export const LIMITS = ['anonymous_ip', 'user', 'subscription_public', 'subscription_user'] as const;
export type LimitName = (typeof LIMITS)[number];

/** Every refusal reason with its possible details ('' when a reason has none). */
export const REFUSALS = {
  origin_not_allowed: [''],
  missing_key: [''],
  invalid_key: [''],
  // no token where one is needed: every request (gateway.requireToken) or a bearer tool
  token_required: ['all_requests', 'tool'],
  // which check refused the token; not_bearer: the Authorization header is not `Bearer <token>`
  invalid_token: [...TOKEN_CHECKS, 'not_bearer'],
  rate_limited: LIMITS,
  // the Redis counters are unreachable and gateway.redis.onError is deny
  rate_limit_unavailable: [''],
  tool_not_allowed: [''],
  unknown_tool: [''],
  // the token lacks a scope the tool requires (403 insufficient_scope)
  insufficient_scope: [''],
  // a `step-up` tool called with a sign-in older than its step-up (or no auth_time): 401, RFC 9470
  insufficient_user_authentication: ['stale', 'no_auth_time'],
  // a `confirm: required` tool call not confirmed: which way (confirmation.ts)
  confirmation: ['unsupported', 'refused', 'expired', 'replayed', 'mismatched', 'unavailable'],
} as const;

export type RefusalReason = keyof typeof REFUSALS;
export type RefusalDetail<R extends RefusalReason> = (typeof REFUSALS)[R][number];

export type ToolOutcome = 'ok' | 'error' | 'invalid' | 'refused';

export interface ToolMetrics {
  /** the tool ran and answered isError: false */
  ok: CounterChild;
  /** the tool ran and failed (isError: true: validation, vendor or internal error) */
  error: CounterChild;
  /** a tools/call the gateway could not run (arguments not an object) */
  invalid: CounterChild;
  /** a tools/call the gateway refused (see gateway_refusals_total for why) */
  refused: CounterChild;
  /** seconds of the calls that ran */
  duration: HistogramChild;
}

export class GatewayMetrics {
  private calls: FastCounter<'tool' | 'outcome'>;
  private duration: FastHistogram<'tool'>;
  private refusals: FastCounter<'reason' | 'detail'>;
  private byTool = new Map<string, ToolMetrics>();
  private byRefusal = new Map<string, CounterChild>();

  constructor(registry: Registry) {
    this.calls = new FastCounter(
      'gateway_tool_calls_total',
      'MCP tools/call requests by tool and outcome (ok, error, invalid, refused)',
      ['tool', 'outcome'],
      registry,
    );
    this.duration = new FastHistogram(
      'gateway_tool_call_duration_seconds',
      'Duration of the MCP tool calls that ran, by tool',
      ['tool'],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registry,
    );
    this.refusals = new FastCounter(
      'gateway_refusals_total',
      'Requests to /mcp the gateway refused, by reason and detail (which token check, which limit)',
      ['reason', 'detail'],
      registry,
    );
    // every refusal series exists from the start (at 0), so alerts and rate() see the first one
    for (const reason of Object.keys(REFUSALS) as RefusalReason[]) {
      for (const detail of REFUSALS[reason])
        this.byRefusal.set(`${reason}\u0000${detail}`, this.refusals.labels({ reason, detail }));
    }
    this.tool(UNKNOWN_TOOL);
  }

  /** The bound metrics of one tool name (the caller passes served names or UNKNOWN_TOOL only). */
  tool(name: string): ToolMetrics {
    let m = this.byTool.get(name);
    if (!m) {
      const c = (outcome: ToolOutcome) => this.calls.labels({ tool: name, outcome });
      m = {
        ok: c('ok'),
        error: c('error'),
        invalid: c('invalid'),
        refused: c('refused'),
        duration: this.duration.labels({ tool: name }),
      };
      this.byTool.set(name, m);
    }
    return m;
  }

  refused<R extends RefusalReason>(reason: R, detail: RefusalDetail<R>): void {
    this.byRefusal.get(`${reason}\u0000${detail}`)?.inc();
  }
}

// one set per registry: the gateway of a reload, or a second start on the same engine, keeps counting
// (a registry is one engine's Metrics: per engine already)
const perRegistry = new WeakMap<Registry, GatewayMetrics>();

export function gatewayMetrics(registry: Registry): GatewayMetrics {
  let m = perRegistry.get(registry);
  if (!m) {
    m = new GatewayMetrics(registry);
    perRegistry.set(registry, m);
  }
  return m;
}
