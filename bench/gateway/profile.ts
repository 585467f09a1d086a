// CPU profile of the engine under gateway load: `node --import tsx bench/gateway/profile.ts [DIR]`
// writes a .cpuprofile of the engine process (open it in Chrome DevTools) and prints the heaviest
// functions by self time in µs per request. TARGET=direct profiles the FX route called directly instead of /mcp.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { signSandboxToken } from '../../sandbox/idp/index.ts';
import { spawnUrl, stop } from '../lib/harness.ts';
import { summarize } from '../lib/cpu-profile.ts';

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
const s = summarize(join(dir, file), r.requests.total);
console.log(`busy ${s.totalUs.toFixed(1)} µs per request (profiler overhead included)\nby file:`);
for (const [k, us] of s.files.slice(0, 15)) console.log(`${us.toFixed(2).padStart(7)} µs  ${k}`);
console.log('by function:');
for (const [k, us] of s.functions.slice(0, 40)) console.log(`${us.toFixed(2).padStart(7)} µs  ${k}`);
console.log(`profile: ${join(dir, file)}`);
