// Bytes allocated per request of one target under run.ts's tools/call load, by file and by
// function, collected objects included (what the garbage collector has to go through):
//   node --import tsx bench/gateway/alloc.ts      TARGET=mcp|direct|limit|fx-limit, DIR=<another checkout>
// The sampling costs the target much of its speed, so the req/s it prints are not the target's.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { spawnUrl, stop } from '../lib/harness.ts';
import { requestFor, startTarget, targetOf } from './targets.ts';

const target = targetOf(process.env.TARGET);
const out = `/tmp/alloc-${target}-${process.pid}.json`;
const sim = await spawnUrl(['--import', 'tsx', 'bench/gateway/hubvendor-sim.ts']);
const proc = await startTarget(target, sim.url, {
  dir: process.env.DIR,
  node: ['--import', resolve('bench/lib/alloc-sampler.mjs')],
  env: { ALLOC_OUT: out },
});
const req = await requestFor(target);
const opts = {
  url: proc.url + req.path,
  method: 'POST' as const,
  connections: 50,
  headers: req.headers,
  body: req.body,
};
let requests = 0;
try {
  await autocannon({ ...opts, duration: 4 }); // warm-up (JIT)
  proc.child.kill('SIGUSR2');
  requests = (await autocannon({ ...opts, duration: Number(process.env.SECONDS ?? 5) })).requests.total;
  proc.child.kill('SIGUSR2');
  for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 100));
} finally {
  await stop(proc);
  await stop(sim);
}
const profile = JSON.parse(readFileSync(out, 'utf8'));
rmSync(out);
const byFile = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
const walk = (node: any): void => {
  if (node.selfSize) {
    const where = node.callFrame.url
      .replace(/^.*\/node_modules\//, '')
      .replace(/^file:\/\/.*?\/(engine|sandbox|bench)\//, '$1/');
    const fn = `${node.callFrame.functionName || '(anon)'} ${where || '(native)'}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize);
    byFile.set(where || '(native)', (byFile.get(where || '(native)') ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const c of node.children) walk(c);
};
walk(profile.head);
const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${(v / requests).toFixed(0).padStart(7)} B  ${k}`)
    .join('\n');
console.log(
  `${target}: ${(total / requests).toFixed(0)} bytes allocated per request (${requests} requests sampled)\nby file:\n${top(byFile, 20)}\nby function:\n${top(byFunction, Number(process.env.TOP ?? 40))}`,
);
