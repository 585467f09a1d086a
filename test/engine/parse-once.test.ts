// A start reads each YAML document once, and the route-test files not at all: the route loader, the
// reload fingerprints, the gateway and the console share the parse (core/yaml-source.ts,
// shareYamlParses). Parsing was the largest part of starting the whole sandbox project
// (docs/benchmarks.md, Start-up).

import { describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';

const parsed = vi.hoisted(() => new Map<string, number>());
vi.mock('yaml', async (original) => {
  const yaml = await original<typeof import('yaml')>();
  const count = (text: unknown) => {
    if (typeof text === 'string') parsed.set(text, (parsed.get(text) ?? 0) + 1);
  };
  return {
    ...yaml,
    parse: (...a: Parameters<typeof yaml.parse>) => {
      count(a[0]);
      return yaml.parse(...a);
    },
    parseDocument: (...a: Parameters<typeof yaml.parseDocument>) => {
      count(a[0]);
      return yaml.parseDocument(...a);
    },
  };
});

const { startTestEngine } = await import('../helpers/engine.ts');
const { findTestFiles } = await import('../../engine/testing/runner.ts');

describe('starting the sandbox project', () => {
  it('parses each YAML document once', async () => {
    const engine = await startTestEngine();
    try {
      expect(engine.routes.length).toBeGreaterThan(20);
      const twice = [...parsed]
        .filter(([, n]) => n > 1)
        .map(([text, n]) => `${n}x ${text.slice(0, 60).replace(/\n/g, ' ')}`);
      expect(parsed.size).toBeGreaterThan(40);
      expect(twice).toEqual([]);
      // route-test files (tests/*.yaml) are lint's and `engine test`'s, not a run's: left unread
      const tests = findTestFiles(['routes']);
      expect(tests.length).toBeGreaterThan(10);
      expect(tests.filter((f) => parsed.has(readFileSync(f, 'utf8')))).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
