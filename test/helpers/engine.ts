// Starts the engine in-process on an ephemeral port, on the sandbox by default, for route tests
// over real sockets. Logs go nowhere unless LOG_LEVEL is set.

import { startEngine, type EngineOptions, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import { gatewayExtension } from '../../engine/gateway/index.ts';

export interface TestEngine extends RunningEngine {
  /** the embedded simulators (undefined when the environment does not run the sandbox) */
  sandbox: Sandbox;
  /** POST/PUT/GET JSON to the engine; returns status, headers and parsed body */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: any }>;
}

export async function startTestEngine(opts: Partial<EngineOptions> = {}): Promise<TestEngine> {
  // the sandbox extension always comes first, as the CLI registers it; `extensions` adds to it
  const sandbox = sandboxExtension();
  const engine = await startEngine({
    routes: ['routes'],
    env: 'sandbox',
    port: 0,
    logger: createLogger((process.env.LOG_LEVEL as any) ?? 'silent'),
    shutdownTimeoutMs: 2000,
    // the tests of webhook routes expect the event during the request (the outbox's own tests turn it on)
    outbox: false,
    ...opts,
    // the gateway reads the tool files under routes/gateway, so the default project loads whole
    extensions: [sandbox, ...(opts.extensions ?? [gatewayExtension({ audit: false })])],
  });
  const request: TestEngine['request'] = async (method, path, body, headers = {}) => {
    const res = await fetch(engine.url + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return Object.assign(engine, { sandbox: sandbox.sandbox as Sandbox, request });
}
