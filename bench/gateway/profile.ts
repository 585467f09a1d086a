// CPU profile of the engine under gateway load: `node --import tsx bench/gateway/profile.ts [DIR]`
// writes a .cpuprofile of the engine process (open it in Chrome DevTools) and prints the heaviest
// functions by self time. TARGET=direct profiles the FX route called directly instead of /mcp.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { spawnUrl, stop } from '../lib/harness.ts';

const dir = process.argv[2] ?? '/tmp/gateway-profile';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const token = await signSandboxToken({ sub: 'bench-user' });
// the simulator in its own process, so that the profile holds only the engine's work
const sim = await spawnUrl(['--import', 'tsx', 'bench/gateway/hubvendor-sim.ts']);
const target = process.env.TARGET === 'direct' ? 'direct' : 'mcp';
const port = 18_100 + Math.floor(Math.random() * 800);
const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'bin/engine.js', 'run', 'routes/gateway', 'routes/platform-backend', 'routes/hubvendor-foreign-exchange',
  '--env', 'sandbox', '--port', String(port), '--set', `hubvendor-base-url=${sim.url}`, '--set', 'gateway.rateLimits.user=1000000000', '--set', 'gateway.rateLimits.subscriptionPublic=1000000000'],
{ stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, LOG_LEVEL: 'warn', ENGINE_CONSOLE_ENABLED: 'false' } }); // as run.ts measures it
await new Promise((r) => setTimeout(r, 6000));
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getExchangeRate', arguments: { buyCurrency: 'EUR', sellCurrency: 'USD' } } });
const r = target === 'direct'
  ? await autocannon({ url: `http://127.0.0.1:${port}/foreign-exchange/exchange-rates`, method: 'POST', connections: 20, duration: 6,
    body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' }), headers: { 'content-type': 'application/json' } })
  : await autocannon({ url: `http://127.0.0.1:${port}/mcp`, method: 'POST', connections: 20, duration: 6, body,
    headers: { 'content-type': 'application/json', 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key', authorization: `Bearer ${token}` } });
console.log(`${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}`);
child.kill('SIGINT');
await new Promise((res) => child.once('exit', res));
await stop(sim);
// the main thread's profile is the biggest (tsx's loader thread writes one too)
const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => [f, statSync(join(dir, f)).size] as const).sort((a, b) => b[1] - a[1])[0][0];
const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
const self = new Map<string, number>();
const dt = new Map<number, number>();
prof.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
let total = 0;
for (const n of prof.nodes) {
  const t = dt.get(n.id) ?? 0;
  total += t;
  const cf = n.callFrame;
  const k = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
  self.set(k, (self.get(k) ?? 0) + t);
}
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${((t / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
console.log(`profile: ${join(dir, file)}`);
