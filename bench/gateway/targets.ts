// The targets of the gateway's measuring tools (profile.ts, alloc.ts, pair.ts) started as run.ts
// starts them, and run.ts's loads: the engine (of this checkout or another one: `dir`), the
// hand-written limits, and the tools/call and FX route requests.
import { spawn } from 'node:child_process';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { spawnUrl, type Proc } from '../lib/harness.ts';

export type Target = 'mcp' | 'direct' | 'limit' | 'fx-limit';
export const TARGETS: Target[] = ['mcp', 'direct', 'limit', 'fx-limit'];

/**
 * The process serving `target`: the engine (mcp, direct) run from `dir` as run.ts runs it (console
 * off, limits raised), or a limit. `node` are flags for node itself (profilers, preloads).
 */
export function startTarget(
  target: Target,
  vendorUrl: string,
  o: { dir?: string; node?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<Proc> {
  const node = o.node ?? [];
  if (target === 'limit' || target === 'fx-limit') {
    return spawnUrl(
      [
        ...node,
        '--import',
        'tsx',
        target === 'limit' ? 'bench/gateway/limit.ts' : 'bench/hubvendor-foreign-exchange/baseline.ts',
        vendorUrl,
      ],
      o.env,
    );
  }
  const args = [
    ...node,
    'bin/engine.js',
    'run',
    'routes/gateway',
    'routes/platform-backend',
    'routes/hubvendor-foreign-exchange',
    '--env',
    'sandbox',
    '--port',
    '0',
    '--set',
    `hubvendor-base-url=${vendorUrl}`,
    '--set',
    'gateway.rateLimits.user=1000000000',
    '--set',
    'gateway.rateLimits.subscriptionPublic=1000000000',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: o.dir ?? process.cwd(),
      env: { ...process.env, LOG_LEVEL: 'info', ENGINE_CONSOLE_ENABLED: 'false', ...o.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('engine did not start'));
    }, 60_000);
    // its URL is in the `engine started` line (the sandbox's simulators log theirs before)
    child.stdout!.on('data', (d: Buffer) => {
      buf += d;
      for (const line of buf.split('\n')) {
        const m = line.includes('"engine started"') && /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(line);
        if (m) {
          clearTimeout(timer);
          child.stdout!.removeAllListeners('data');
          child.stdout!.resume();
          resolve({ child, url: m[1] });
          return;
        }
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`engine exited with ${code}`));
    });
  });
}

export interface Request {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** run.ts's requests: tools/call getExchangeRate (2025-11-25) for mcp and limit, the FX route's body for the others. */
export async function requestFor(target: Target): Promise<Request> {
  const args = { buyCurrency: 'EUR', sellCurrency: 'USD' };
  if (target === 'direct' || target === 'fx-limit')
    return {
      path: '/foreign-exchange/exchange-rates',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args),
    };
  const token = await signSandboxToken({ sub: 'bench-user', ttl: 3600 });
  return {
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key',
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'getExchangeRate', arguments: args },
    }),
  };
}

export function targetOf(value: string | undefined, fallback: Target = 'mcp'): Target {
  const t = (value ?? fallback) as Target;
  if (!TARGETS.includes(t)) throw new Error(`TARGET must be one of ${TARGETS.join(', ')}, not ${value}`);
  return t;
}
