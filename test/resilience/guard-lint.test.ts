// Lint on the guard keys of a client profile: a threshold of 0, negative sizes, a ratio out of
// range, a breaker on a client no route calls, and a step that sets one itself are each said at
// their line, with what is allowed.
import { describe, it, expect } from 'vitest';
import { lintFiles } from '../helpers/lint-files.ts';

const ROUTE = `id: rates
from:
  http:
    method: GET
    path: /rates
steps:
  - to-http:
      client: vendor
      path: /rates
`;

function files(client: string, route = ROUTE) {
  return {
    'values/demo-v1.values.yaml': `vendor:\n  baseUrl: http://127.0.0.1:9\nbreaker:\n  failures: 0\n`,
    'routes/demo/connector.yaml': `values: demo-v1
clients:
  vendor:
    base-url: "{{vendor.baseUrl}}"
${client}`,
    'routes/demo/rates.yaml': route,
  };
}

describe('lint of circuit-breaker, bulkhead and retry-budget', () => {
  it('a threshold of 0, negative sizes and a ratio over 1 are errors at their line, saying what is allowed', async () => {
    const out = await lintFiles(
      files(`    circuit-breaker:
      failures: 0
      ratio: 1.5
    bulkhead:
      max-concurrent: -1
      max-queue: -2
    retry-budget: { window: 10 }
`),
    );
    const text = out.join('\n');
    expect(text).toMatch(/connector\.yaml:6:17 failures must be an integer >= 1, got 0/);
    expect(text).toMatch(/connector\.yaml:7:14 ratio must be a ratio over 0 and at most 1, got 1\.5/);
    expect(text).toMatch(/connector\.yaml:9:23 max-concurrent must be an integer >= 1, got -1/);
    expect(text).toMatch(/connector\.yaml:10:18 max-queue must be an integer >= 0, got -2/);
    expect(text).toMatch(/connector\.yaml:11:29 window must be an integer of ms >= 1000, got 10/);
    // the route naming the broken client is told so, not given a false second problem
    expect(text).toMatch(/rates\.yaml:8:15 client 'vendor' has errors/);
  });

  it('a value from the values file is said at the values file line', async () => {
    const out = await lintFiles(files(`    circuit-breaker: { failures: "{{breaker.failures}}" }\n`));
    expect(out.join('\n')).toMatch(/values\/demo-v1\.values\.yaml:4:\d+ .*failures must be an integer >= 1, got 0/);
  });

  it('a breaker on a client no route calls is named at its key', async () => {
    const out = await lintFiles({
      ...files(`  spare:
    base-url: "{{vendor.baseUrl}}"
    circuit-breaker: { failures: 3 }
`),
    });
    expect(out.join('\n')).toMatch(
      /connector\.yaml:7:5 warning: client 'spare' is called by no route, so its circuit-breaker protects nothing/,
    );
  });

  it('a step cannot set a breaker of its own: it belongs to the client', async () => {
    const out = await lintFiles(
      files('', ROUTE.replace('      path: /rates\n', '      path: /rates\n      circuit-breaker: { failures: 2 }\n')),
    );
    expect(out.join('\n')).toMatch(/rates\.yaml:10:7 unknown key 'circuit-breaker' in to-http step/);
  });

  it('a bulkhead needs its size; good settings lint clean', async () => {
    const out = await lintFiles(files(`    bulkhead: { max-queue: 3 }\n`));
    expect(out.join('\n')).toMatch(/connector\.yaml:5:5 clients file is missing required key 'max-concurrent'/);
    const good = await lintFiles(
      files(`    circuit-breaker: { failures: 5, ratio: 0.5, window: 30000, min-calls: 20, half-open-after: 10000 }
    bulkhead: { max-concurrent: 10, max-queue: 0, queue-timeout: 500 }
    retry-budget: { ratio: 0.1, window: 5000, min-per-second: 1 }
`),
    );
    expect(good).toEqual([]);
  });
});
