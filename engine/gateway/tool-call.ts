// One tool call: the target route runs in-process with the arguments as body (path parameters
// taken out first) and only the user id as user context; the answer is the members of a
// CallToolResult. A failure is a result too (isError), never a protocol error, so the agent can
// correct itself; its platform problem is the text and, where the caller allows it, the
// structuredContent.

import { performance } from 'node:perf_hooks';
import type { Context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { PlatformError, problemOf, toPlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import type { DirectCall, DirectResult } from '../pipeline/compile-context.ts';
import type { ToolMetrics } from './metrics.ts';
import type { Tool } from './tools.ts';

/** How a call ended, for the audit trail: an error answer's platform code. */
export interface ToolEnd {
  isError: boolean;
  code?: string;
}

export interface ToolDeps {
  call: (routeId: string, init: DirectCall) => Promise<DirectResult>;
  log: Logger;
}

const OK_END: ToolEnd = { isError: false };

/**
 * Runs the call and hands `answer` its `"content":[...],"structuredContent":...,"isError":...`
 * (JSON members, no braces); resolves with what `answer` returns. The caller's answer is built
 * here rather than in a then() of its own: one promise less per call.
 */
export async function runTool<T>(
  d: ToolDeps,
  tm: ToolMetrics,
  tool: Tool,
  args: Record<string, unknown>,
  user: { id: string; authenticated: boolean },
  correlationId: string,
  problemAsStructured: boolean,
  answer: (members: string, end: ToolEnd) => T,
  /** the trace context the route's exchange continues (the gateway's span of this call) */
  trace?: Context,
): Promise<T> {
  const started = performance.now();
  let result: DirectResult;
  try {
    let body = args;
    let params: Record<string, string> | undefined;
    if (tool.pathParams.length) {
      // the route's path parameters are arguments too; they must be there before any route runs
      ({ body, params } = splitPathParams(tool, args));
    }
    result = await d.call(tool.route, { body, params, user, correlationId, trace });
  } catch (e) {
    const err = toPlatformError(e);
    tm.duration.observe((performance.now() - started) / 1000);
    tm.error.inc();
    if (err.kind === 'internal' || err.kind === 'config')
      d.log.error({ tool: tool.name, correlationId, err: e }, 'gateway: tool failed');
    const problem = problemOf(err, correlationId);
    const p = JSON.stringify(problem);
    return answer(
      `"content":[{"type":"text","text":${JSON.stringify(p)}}]${problemAsStructured ? `,"structuredContent":${p}` : ''},"isError":true`,
      { isError: true, code: problem.code },
    );
  }
  tm.duration.observe((performance.now() - started) / 1000);
  tm.ok.inc();
  const body = result.body;
  const json = body === undefined ? 'null' : JSON.stringify(body);
  const structured =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? `,"structuredContent":${json}` : '';
  return answer(`"content":[{"type":"text","text":${JSON.stringify(json)}}]${structured},"isError":false`, OK_END);
}

/** Takes the path parameters out of the arguments; a missing or non-string one is a validation problem. */
function splitPathParams(
  tool: Tool,
  args: Record<string, unknown>,
): { body: Record<string, unknown>; params: Record<string, string> } {
  const body: Record<string, unknown> = { ...args };
  const params: Record<string, string> = {};
  const errors: { field: string; message: string }[] = [];
  for (const n of tool.pathParams) {
    const v = args[n];
    delete body[n];
    if (typeof v === 'string' && v !== '') params[n] = v;
    else errors.push({ field: `/${n}`, message: v === undefined ? 'is required' : 'must be a non-empty string' });
  }
  if (errors.length) {
    throw new PlatformError({
      kind: 'validation',
      code: CODE.validation,
      detail: errors.map((e) => `${e.field} ${e.message}`).join('; '),
      errors,
    });
  }
  return { body, params };
}
