// Which durable store an engine uses: PostgreSQL from ENGINE_STORE_POSTGRES_URL, the file
// ENGINE_STORE_POSTGRES_URL_FILE names, or engine.store.postgres.url (never with a password), else
// the embedded store in .engine/store; its log line never shows the password; lint never opens it.

import { describe, expect, it } from 'vitest';
import { describeDurable, durableStoreFor, effectiveDurableSettings } from '../../engine/store/durable-for.ts';
import type { EngineServices } from '../../engine/pipeline/compile-context.ts';
import { engineSettingsProblems, loadEngineSettings } from '../helpers/environment-engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const load = loadEngineSettings;
const problems = engineSettingsProblems;

describe('engine.store.postgres and engine.store.embedded', () => {
  it('read with defaults; without a URL the embedded store in .engine/store under the project', () => {
    const store = load('engine:\n  store:\n    postgres:\n      url: postgres://db.internal/engine\n').store;
    expect(store?.postgres).toEqual({ url: 'postgres://db.internal/engine', schema: 'engine', poolSize: 5 });
    expect(effectiveDurableSettings(undefined, '/srv/app', {})).toEqual({
      kind: 'embedded',
      dir: '/srv/app/.engine/store',
    });
    const own = load('engine:\n  store:\n    embedded: { dir: data/store }\n').store;
    expect(effectiveDurableSettings(own, '/srv/app', {})).toEqual({ kind: 'embedded', dir: '/srv/app/data/store' });
  });

  it('a password in the file is refused at its line; a bad schema name and a typo are named', () => {
    const [p] = problems('engine:\n  store:\n    postgres:\n      url: postgres://u:s3cret@db/x\n');
    expect(p).toMatch(
      /^4:\d+ engine\.store\.postgres\.url: a PostgreSQL password is a secret; .*ENGINE_STORE_POSTGRES_URL/,
    );
    expect(p).not.toContain('s3cret');
    expect(problems('engine:\n  store:\n    postgres:\n      schema: "x; drop"\n').join('\n')).toMatch(
      /^4:\d+ .*schema/,
    );
    expect(problems('engine:\n  store:\n    embeded: {}\n')).toEqual([
      "3:5 unknown key 'embeded' in engine settings; did you mean 'embedded'?",
    ]);
  });

  it('ENGINE_STORE_POSTGRES_URL wins, then the secrets file ENGINE_STORE_POSTGRES_URL_FILE names, then the file setting', () => {
    const file = { inFlightTimeout: 1, postgres: { url: 'postgres://file/db', schema: 'eng', poolSize: 2 } };
    expect(effectiveDurableSettings(file, '/p', { ENGINE_STORE_POSTGRES_URL: 'postgres://u:pw@env/db' })).toEqual({
      kind: 'postgres',
      url: 'postgres://u:pw@env/db',
      schema: 'eng',
      poolSize: 2,
    });
    const root = tmpProject({ 'secrets/pg-url': 'postgres://u:pw@secret:5433/db\n' });
    expect(effectiveDurableSettings(file, root, { ENGINE_STORE_POSTGRES_URL_FILE: 'secrets/pg-url' })).toMatchObject({
      url: 'postgres://u:pw@secret:5433/db',
    });
    expect(effectiveDurableSettings(file, '/p', {})).toMatchObject({ url: 'postgres://file/db' });
    expect(effectiveDurableSettings(undefined, '/p', { ENGINE_STORE_POSTGRES_URL: 'postgres://x/y' })).toMatchObject({
      schema: 'engine',
      poolSize: 5,
    });
  });

  it('the log line names host, database and schema, never the password', () => {
    const s = describeDurable({
      kind: 'postgres',
      url: 'postgres://eng:s3cret@db.internal:5433/bank',
      schema: 'engine',
      poolSize: 5,
    });
    expect(s).toBe('PostgreSQL db.internal:5433/bank schema engine');
    expect(describeDurable({ kind: 'postgres', url: 'not a url s3cret', schema: 'e', poolSize: 1 })).not.toContain(
      's3cret',
    );
    expect(describeDurable({ kind: 'embedded', dir: '/p/.engine/store' })).toBe(
      'embedded (PGlite) in /p/.engine/store',
    );
  });

  it('lint never opens the store', async () => {
    const services = { lintOnly: true, onClose: () => {} } as unknown as EngineServices;
    await expect(durableStoreFor(services)).rejects.toThrow(/lint opens no durable store/);
  });
});
