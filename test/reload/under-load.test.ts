// Reload under load drops no request: a bounded number of clients on 127.0.0.1 keep requests
// flowing (each a vendor call, so exchanges are in flight at every swap) through five reloads
// that each change the route's answer. Every answer is a 200, and no client ever sees an older
// version after a newer one: each swap is one step.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { Agent } from 'undici';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { httpRoute, reloadProject, startVendor, type Vendor } from './project.ts';

const CLIENTS = 8;
const RELOADS = 5;

let vendor: Vendor;
let engine: RunningEngine;
let project: ReturnType<typeof reloadProject>;
const agent = new Agent({ connections: CLIENTS });

beforeAll(async () => {
  vendor = await startVendor();
  project = reloadProject(vendor.url);
  engine = await startEngine({
    routes: ['routes'],
    root: project.root,
    port: 0,
    logger: createLogger('silent'),
    shutdownTimeoutMs: 2000,
  });
});

afterAll(async () => {
  await engine?.close();
  await vendor?.close();
  await agent.close();
});

it('answers every request with a 200 through five reloads', async () => {
  let stop = false;
  const failures: string[] = [];
  const seen: number[][] = Array.from({ length: CLIENTS }, () => []);
  const client = async (i: number) => {
    while (!stop) {
      try {
        const res = await fetch(engine.url + '/hello', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
          dispatcher: agent,
        } as RequestInit);
        const body = (await res.json()) as { version: number };
        if (res.status !== 200) failures.push(`${res.status} ${JSON.stringify(body)}`);
        else seen[i].push(body.version);
      } catch (e) {
        failures.push(String(e));
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
  const results = [];
  for (let v = 2; v <= RELOADS + 1; v++) {
    // requests flow before each swap
    const before = seen.flat().length;
    while (seen.flat().length < before + CLIENTS * 4 && failures.length === 0)
      await new Promise((r) => setTimeout(r, 5));
    project.write('routes/hello.yaml', httpRoute('hello', `{"version": ${v}}`));
    results.push(await engine.reload(`version ${v}`));
  }
  const after = seen.flat().length;
  while (seen.flat().length < after + CLIENTS * 4 && failures.length === 0) await new Promise((r) => setTimeout(r, 5));
  stop = true;
  await Promise.all(clients);

  expect(failures).toEqual([]);
  expect(results.map((r) => r.ok && r.changed)).toEqual(Array(RELOADS).fill(['hello']));
  for (const versions of seen) {
    // one client's requests run one after another: versions never go back
    expect(versions.every((v, k) => k === 0 || v >= versions[k - 1])).toBe(true);
    expect(versions.at(-1)).toBe(RELOADS + 1);
  }
  expect(new Set(seen.flat())).toEqual(new Set([1, 2, 3, 4, 5, 6]));
});
