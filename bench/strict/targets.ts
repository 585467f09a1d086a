// The processes the strict benchmarks load: the hand-written limits, the engine with the console off
// and on, and the official MCP SDK's server, each started on the target core against one vendor
// stand-in. Each target is measured alone; the others sit idle on the same core meanwhile.
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { spawnUrl, stop, type Proc } from '../lib/harness.ts';
import { onTargetCore } from '../lib/pinning.ts';
import type { Request } from '../lib/wrk.ts';

const tsx = ['--import', 'tsx'];

export interface Targets {
  fxLimit: Proc;
  /** the FX route's work written plainly (plain-fx.ts): the limit must not be slower */
  fxPlain: Proc;
  /** the same written for start-up (lean-fx.ts): the limit must not be slower than this either */
  fxLean: Proc;
  fxEngine: Proc;
  fxEngineConsole: Proc;
  /** the raw JSON-RPC handler: the gateway's checks, limits and vendor call, no audit trail */
  gatewayLimit: Proc;
  /** the same writing the gateway's audit record of every decision to the same store (its own schema) */
  gatewayLimitAudit: Proc;
  gateway: Proc;
  /** the same with its audit trail off: what the trail's writes cost beside the rest */
  gatewayNoAudit: Proc;
  gatewayConsole: Proc;
  sdk: Proc;
  fx: Request;
  toolCall: Request;
  /** the SDK server's tools/call: the same body, without key or token (it checks neither) */
  sdkToolCall: Request;
  stopAll(): Promise<void>;
}

const consoleEnv = (on: boolean) => ({ LOG_LEVEL: 'info', ENGINE_CONSOLE_ENABLED: String(on) });

function fxEngine(vendor: string, consoleOn: boolean): Promise<Proc> {
  const args = ['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--port', '0'];
  return spawnUrl([...args, '--set', `hubvendor-base-url=${vendor}`], consoleEnv(consoleOn), 60_000, onTargetCore);
}

// the gateway as the sandbox runs it, its rate limits raised: they are checked on every request as in
// production, but the benchmark's client is one user far over 500 calls a minute
function gateway(vendor: string, consoleOn: boolean, store: Record<string, string>, audit = true): Promise<Proc> {
  const routes = ['routes/gateway', 'routes/platform-backend', 'routes/hubvendor-foreign-exchange'];
  const set = [
    `hubvendor-base-url=${vendor}`,
    'gateway.rateLimits.user=1000000000',
    'gateway.rateLimits.subscriptionPublic=1000000000',
    ...(audit ? [] : ['gateway.audit.enabled=false']),
  ].flatMap((s) => ['--set', s]);
  return spawnUrl(
    ['bin/engine.js', 'run', ...routes, '--env', 'sandbox', '--port', '0', ...set],
    { ...consoleEnv(consoleOn), ...store },
    60_000,
    onTargetCore,
  );
}

export async function startTargets(vendor: string, store: Record<string, string>): Promise<Targets> {
  const started: Proc[] = [];
  const keep = async (p: Promise<Proc>) => {
    const proc = await p;
    started.push(proc);
    return proc;
  };
  const stopAll = async () => {
    await Promise.all(started.map(stop));
  };
  try {
    const script = (file: string, env: Record<string, string> = {}) =>
      spawnUrl([...tsx, file, vendor], env, 60_000, onTargetCore);
    const token = await signSandboxToken({ sub: 'bench-user', ttl: 3600 });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' } },
    });
    const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    return {
      fxLimit: await keep(script('bench/hubvendor-foreign-exchange/baseline.ts')),
      fxPlain: await keep(script('bench/strict/plain-fx.ts')),
      fxLean: await keep(script('bench/strict/lean-fx.ts')),
      fxEngine: await keep(fxEngine(vendor, false)),
      fxEngineConsole: await keep(fxEngine(vendor, true)),
      gatewayLimit: await keep(script('bench/gateway/limit.ts')),
      // the trail to PostgreSQL as the gateway's (on the embedded store the limit writes none)
      gatewayLimitAudit: await keep(script('bench/gateway/limit.ts', store)),
      gateway: await keep(gateway(vendor, false, store)),
      gatewayNoAudit: await keep(gateway(vendor, false, store, false)),
      gatewayConsole: await keep(gateway(vendor, true, store)),
      sdk: await keep(script('bench/gateway/sdk-server.ts')),
      fx: {
        method: 'POST',
        path: '/foreign-exchange/exchange-rates',
        body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' }),
      },
      toolCall: {
        method: 'POST',
        path: '/mcp',
        body: call,
        headers: {
          ...mcpHeaders,
          'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key',
          authorization: `Bearer ${token}`,
        },
      },
      sdkToolCall: { method: 'POST', path: '/mcp', body: call, headers: mcpHeaders },
      stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/** One request: the answers of the targets must be successful and equal, or nothing is measured. */
export async function sameAnswer(pairs: [name: string, p: Proc, r: Request][]): Promise<void> {
  let first: { name: string; text: string } | undefined;
  for (const [name, p, r] of pairs) {
    const res = await fetch(p.url + r.path, {
      method: r.method,
      headers: { 'content-type': 'application/json', ...r.headers },
      body: r.body,
    });
    const text = JSON.stringify(JSON.parse(await res.text()));
    if (res.status !== 200 || text.includes('"isError":true'))
      throw new Error(`${name} answered ${res.status}: ${text}`);
    if (first && first.text !== text) throw new Error(`${name} and ${first.name} differ:\n${text}\n${first.text}`);
    first ??= { name, text };
  }
}
