// A start reads each YAML document once: the route loader, the reload fingerprints, the gateway
// and the console share the parse (dsl/yaml-source.ts, shareYamlParses). Parsing was the largest
// part of starting the whole sandbox project (docs/benchmarks.md, Start-up).

import { describe, expect, it, vi } from 'vitest';

const parsed = vi.hoisted(() => new Map<string, number>());
vi.mock('yaml', async (original) => {
  const yaml = await original<typeof import('yaml')>();
  const count = (text: unknown) => { if (typeof text === 'string') parsed.set(text, (parsed.get(text) ?? 0) + 1); };
  return {
    ...yaml,
    parse: (...a: Parameters<typeof yaml.parse>) => { count(a[0]); return yaml.parse(...a); },
    parseDocument: (...a: Parameters<typeof yaml.parseDocument>) => { count(a[0]); return yaml.parseDocument(...a); },
  };
});

const { startTestEngine } = await import('../helpers/engine.ts');

describe('starting the sandbox project', () => {
  it('parses each YAML document once', async () => {
    const engine = await startTestEngine();
    try {
      expect(engine.routes.length).toBeGreaterThan(20);
      const twice = [...parsed].filter(([, n]) => n > 1).map(([text, n]) => `${n}x ${text.slice(0, 60).replace(/\n/g, ' ')}`);
      expect(parsed.size).toBeGreaterThan(40);
      expect(twice).toEqual([]);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
