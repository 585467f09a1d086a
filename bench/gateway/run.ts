// Gateway benchmark: `tools/call getExchangeRate` through POST /mcp with a subscription key and a
// bearer JWT, against (1) the FX route called directly on the same engine and (2) the official MCP
// SDK's stateless server running the same route in-process. Same simulator, same bounded load on
// 127.0.0.1, one run; prints req/s, p50/p99 and the ratios, and writes docs/benchmarks-gateway.md.
//   node --import tsx bench/gateway/run.ts      (SECONDS=10 CONNECTIONS=50 ROUNDS=3 to change)
// The gateway's rate limits are raised for the run (they are checked on every request, as in
// production, but a benchmark client is one user far over 500 calls a minute).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { spawnUrl, stop, measure, table, type LoadResult, type Proc } from '../lib/harness.ts';
import { signSandboxToken } from '../../sandbox/idp/index.ts';

const seconds = Number(process.env.SECONDS ?? 10);
// enough concurrent callers to saturate every target: a gateway call crosses three processes
// (load generator, engine, simulator) on two cores, so at 20 the faster targets wait on latency
const connections = Number(process.env.CONNECTIONS ?? 50);
const tsx = ['--import', 'tsx'];
const args = { buyCurrency: 'EUR', sellCurrency: 'USD' };
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getExchangeRate', arguments: args } };
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

/** The engine logs JSON lines; its URL is in the `engine started` line (the sandbox's come first). */
function spawnEngine(argv: string[]): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let buf = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('engine did not start')); }, 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.includes('"engine started"'));
      const m = line && /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(line);
      if (m) { clearTimeout(timer); child.stdout!.removeAllListeners('data'); child.stdout!.resume(); resolve({ child, url: m[1] }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`engine exited with ${code}`)); });
  });
}

/** One request after a run: the target must still answer a successful result. */
async function check(name: string, p: Proc, load: Parameters<typeof measure>[2]): Promise<void> {
  const res = await fetch(p.url + load.path, { method: load.method, headers: { 'content-type': 'application/json', ...load.headers }, body: JSON.stringify(load.body) });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${name}: the target no longer answers correctly (${res.status} ${text.slice(0, 200)})`);
}

const rounds = Number(process.env.ROUNDS ?? 3);
const sim = await spawnUrl([...tsx, 'bench/gateway/hubvendor-sim.ts']);
const results: LoadResult[] = [];
const perRound: Map<string, LoadResult>[] = [];
try {
  const token = await signSandboxToken({ sub: 'bench-user', ttl: 3600 });
  const engine = await spawnEngine(['bin/engine.js', 'run', 'routes/gateway', 'routes/platform-backend', 'routes/hubvendor-foreign-exchange',
    '--env', 'sandbox', '--port', '0', '--set', `hubvendor-base-url=${sim.url}`,
    '--set', 'gateway.rateLimits.user=1000000000', '--set', 'gateway.rateLimits.subscriptionPublic=1000000000']);
  const sdkServer = await spawnUrl([...tsx, 'bench/gateway/sdk-server.ts', sim.url]).catch(async (e) => { await stop(engine); throw e; });
  const targets: [string, Proc, Parameters<typeof measure>[2]][] = [
    ['FX route direct (POST /foreign-exchange/exchange-rates)', engine,
      { method: 'POST', path: '/foreign-exchange/exchange-rates', body: args, connections, seconds, warmupSeconds: 3 }],
    ['gateway /mcp tools/call (key + JWT + limits)', engine,
      { method: 'POST', path: '/mcp', body: call, headers: { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key', authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, connections, seconds, warmupSeconds: 3 }],
    ['official MCP SDK stateless server (same route in-process)', sdkServer,
      { method: 'POST', path: '/mcp', body: call, headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, connections, seconds, warmupSeconds: 3 }],
    // the protocol layer alone (no route): tools/list; the gateway lists 4 tools, the SDK server 1
    ['gateway /mcp tools/list (key + JWT + limits)', engine,
      { method: 'POST', path: '/mcp', body: list, headers: { 'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key', authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, connections, seconds, warmupSeconds: 3 }],
    ['official MCP SDK stateless server tools/list', sdkServer,
      { method: 'POST', path: '/mcp', body: list, headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, connections, seconds, warmupSeconds: 3 }],
  ];
  try {
    // interleaved rounds, best of each target: other work on a shared machine only ever slows a run down
    const best = new Map<string, LoadResult>();
    for (let r = 0; r < rounds; r++) {
      for (const [name, proc, load] of targets) {
        const m = await measure(name, proc, load);
        await check(name, proc, load); // a 200 with isError (a vendor failure) must not count as a result
        process.stderr.write(`round ${r + 1}: ${name}: ${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.cpuUsPerReq} µs CPU/req, steal ${m.stealPct} %, errors ${m.errors + m.non2xx}\n`);
        if (!best.has(name) || best.get(name)!.rps < m.rps) best.set(name, m);
        (perRound[r] ??= new Map()).set(name, m);
      }
    }
    results.push(...targets.map(([name]) => best.get(name)!));
  } finally {
    await stop(sdkServer);
    await stop(engine);
  }
} finally {
  await stop(sim);
}

const [direct, gateway, sdk, gwList, sdkList] = results;
// the two tools/call targets of one round ran seconds apart, under about the same machine load
const roundRows = perRound.map((m, i) => {
  const g = m.get(gateway.name)!;
  const k = m.get(sdk.name)!;
  return { round: i + 1, g, k, ratio: g.rps / k.rps, cpu: k.cpuUsPerReq / g.cpuUsPerReq };
});
const sortedRatios = roundRows.map((r) => r.ratio).sort((a, b) => a - b);
const medianRatio = sortedRatios[Math.floor(sortedRatios.length / 2)];
const roundTable = ['| round | gateway tools/call req/s (steal %) | SDK server tools/call req/s (steal %) | throughput ratio | CPU efficiency ratio |', '|---|---|---|---|---|',
  ...roundRows.map((r) => `| ${r.round} | ${r.g.rps} (${r.g.stealPct}) | ${r.k.rps} (${r.k.stealPct}) | ${r.ratio.toFixed(2)} | ${r.cpu.toFixed(2)} |`)].join('\n');
const when = new Date().toISOString();
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`;
const summary = [
  `gateway / SDK server: ${(gateway.rps / sdk.rps).toFixed(2)}x throughput, best rounds (target >= 5x); median of the per-round ratios ${medianRatio.toFixed(2)}x`,
  `gateway / FX route direct: ${(gateway.rps / direct.rps).toFixed(2)}x throughput (the cost of MCP + key + JWT + limits)`,
  `protocol layer alone (tools/list): gateway / SDK server ${(gwList.rps / sdkList.rps).toFixed(2)}x throughput, ${(sdkList.cpuUsPerReq / gwList.cpuUsPerReq).toFixed(2)}x less CPU per request`,
  `tools/call CPU per request: gateway / SDK server ${(sdk.cpuUsPerReq / gateway.cpuUsPerReq).toFixed(2)}x less`,
];
const md = `# Benchmark: agent tool gateway

\`tools/call getExchangeRate\` through \`POST /mcp\` with the subscription key and a bearer JWT (RS256,
verified once and then served from the verified-token cache), rate limits checked in memory on every
request, against the same FX route called directly on the same engine, and against the official MCP
SDK's stateless Streamable HTTP server (\`@modelcontextprotocol/sdk\` McpServer +
StreamableHTTPServerTransport, \`sessionIdGenerator: undefined\`, JSON responses, a new server per
request as in the SDK's stateless example) running the same route in-process, without any key or
token check. Every target calls the same hubvendor simulator process over HTTP.

Machine: ${machine}. Date: ${when}. Load: autocannon, ${connections} connections, ${seconds} s after a 3 s
warm-up, 127.0.0.1; ${rounds} interleaved rounds, the best round of each target. Load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}. Command: \`node --import tsx bench/gateway/run.ts\`.

${table(results, sdk.name)}

Ratios in the table are against the SDK server's tools/call. ${summary.join('. ')}.

Each round, tools/call of both servers:

${roundTable}

On this 2-core machine the load generator, the simulator and the target share the cores, so the
tools/call throughput ratio is bounded by the FX route's own work (validation, the vendor call,
the mapping), which both servers do. The CPU time per request of the target process (steadier than
req/s) and the tools/list rows show the MCP layer itself. "steal %" is the share of the machine's
time its hypervisor gave to other guests during the measurement (\`/proc/stat\`): rounds with much
steal are slower for every target, which is why the best round of each target is reported, next to
the ratio of each round.
`;
writeFileSync('docs/benchmarks-gateway.md', md);
console.log(`\n${md}`);
