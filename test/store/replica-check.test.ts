// The replica check on its own: which settings and variables say "several replicas", what each
// per-process use needs, and that a bad ENGINE_REPLICAS is one line, not a start on a guess.

import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { DiagnosticError, SettingError } from '../../engine/core/diagnostics.ts';
import { loadEnvironment } from '../../engine/config/values.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { readEngineSettings } from '../../engine/config/engine-settings.ts';
import { checkReplicaStore } from '../../engine/store/replica-check.ts';
import { noteKeyUse } from '../../engine/store/store-for.ts';
import type { EngineServices } from '../../engine/pipeline/compile-context.ts';

function services(engine: unknown, uses: { claims?: string[]; durable?: string[] } = {}): EngineServices {
  const s = {
    root: process.cwd(),
    settings: readEngineSettings(engine).settings,
    onClose: () => {},
  } as unknown as EngineServices;
  for (const u of uses.claims ?? []) noteKeyUse(s, 'claims', u);
  for (const u of uses.durable ?? []) noteKeyUse(s, 'durable', u);
  return s;
}

function warnings(fn: (logger: pino.Logger) => void): string[] {
  const lines: string[] = [];
  fn(pino({ level: 'warn' }, { write: (l: string) => lines.push(JSON.parse(l).msg) }));
  return lines;
}

describe('checkReplicaStore', () => {
  it('engine.replicas above one refuses per-process keys; ENGINE_REPLICAS wins over it', () => {
    const s = services({ replicas: 3 }, { claims: ['screening-webhook'] });
    expect(() => warnings((l) => checkReplicaStore(s, 'staging', l, {}))).toThrow(
      /^environment 'staging' runs 3 replicas \(engine\.replicas\) but the keys of screening-webhook are in this process's memory: set ENGINE_STORE_REDIS_URL/,
    );
    expect(warnings((l) => checkReplicaStore(s, 'staging', l, { ENGINE_REPLICAS: '1' }))).toHaveLength(1);
    // with Redis, the keys are shared: nothing to say
    expect(
      warnings((l) => checkReplicaStore(s, 'staging', l, { ENGINE_STORE_REDIS_URL: 'redis://127.0.0.1:6379' })),
    ).toEqual([]);
  });

  it('the outbox needs PostgreSQL, not Redis', () => {
    const s = services({}, { durable: ['batch-status-update'] });
    const env = { ENGINE_REPLICAS: '2', ENGINE_STORE_REDIS_URL: 'redis://127.0.0.1:6379' };
    expect(() => warnings((l) => checkReplicaStore(s, 'production', l, env))).toThrow(
      /the outbox of batch-status-update is in this process's embedded store: set ENGINE_STORE_POSTGRES_URL/,
    );
    expect(
      warnings((l) => checkReplicaStore(s, 'production', l, { ...env, ENGINE_STORE_POSTGRES_URL: 'postgres://db/x' })),
    ).toEqual([]);
  });

  it('routes that remember nothing start on any replica count, silently', () => {
    expect(warnings((l) => checkReplicaStore(services({}), 'production', l, { ENGINE_REPLICAS: '10' }))).toEqual([]);
  });

  it('a replica count that is not one is refused, naming the variable', () => {
    const s = services({}, { claims: ['x'] });
    for (const bad of ['0', 'three', '-2', '1.5'])
      expect(() => checkReplicaStore(s, 'production', pino({ level: 'silent' }), { ENGINE_REPLICAS: bad })).toThrow(
        new SettingError(`ENGINE_REPLICAS: '${bad}' is not a replica count (a whole number from 1)`),
      );
  });

  it('engine.replicas below one is a settings error at its line', () => {
    expect(readEngineSettings({ replicas: 2 }).settings.replicas).toBe(2);
    const dir = tmpProject({ 'environments/prod.yaml': 'engine:\n  replicas: 0\n' });
    expect(() => loadEnvironment(dir, 'prod')).toThrow(DiagnosticError);
    try {
      loadEnvironment(dir, 'prod');
    } catch (e) {
      expect((e as DiagnosticError).diagnostics[0]).toMatchObject({
        line: 2,
        message: expect.stringMatching(/replicas/),
      });
    }
  });
});
