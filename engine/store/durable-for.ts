// Picks the engine's durable store from its settings: PostgreSQL when a URL is configured
// (ENGINE_STORE_POSTGRES_URL, the file ENGINE_STORE_POSTGRES_URL_FILE names, or
// engine.store.postgres.url), else the embedded PGlite in a data folder. Opened on first use, not at
// start: pg and PGlite are imported only then.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EngineServices } from '../pipeline/compile-context.ts';
import { DURABLE_DEFAULTS, type StoreSettings } from '../config/engine-settings.ts';
import type { DurableStore } from './durable.ts';
import { announceListener } from './embedded-lock.ts';

/** The process environment variable holding the PostgreSQL URL (it may carry a password). */
const PG_URL_ENV = 'ENGINE_STORE_POSTGRES_URL';
/** ... or naming a file that holds it (a mounted Kubernetes secret; a trailing newline is dropped). */
const PG_URL_FILE_ENV = 'ENGINE_STORE_POSTGRES_URL_FILE';

export type DurableSettings =
  { kind: 'postgres'; url: string; schema: string; poolSize: number } | { kind: 'embedded'; dir: string };

/** The durable store in effect for a project at `root`. */
export function effectiveDurableSettings(
  settings: StoreSettings | undefined,
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): DurableSettings {
  const file = env[PG_URL_FILE_ENV];
  const url =
    env[PG_URL_ENV] ||
    (file ? readFileSync(resolve(root, file), 'utf8').replace(/\r?\n$/, '') : '') ||
    settings?.postgres?.url;
  if (url)
    return {
      kind: 'postgres',
      url,
      schema: settings?.postgres?.schema ?? DURABLE_DEFAULTS.schema,
      poolSize: settings?.postgres?.poolSize ?? DURABLE_DEFAULTS.poolSize,
    };
  return { kind: 'embedded', dir: resolve(root, settings?.embedded?.dir ?? DURABLE_DEFAULTS.dir) };
}

/** Where the store is, for a log line: host, port, database and schema; never the user's password. */
export function describeDurable(s: DurableSettings): string {
  if (s.kind === 'embedded') return `embedded (PGlite) in ${s.dir}`;
  try {
    const u = new URL(s.url);
    return `PostgreSQL ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname} schema ${s.schema}`;
  } catch {
    return `PostgreSQL (unparsable URL) schema ${s.schema}`;
  }
}

/** Opens the store the settings name and brings its schema up to date. */
async function openDurableStore(s: DurableSettings): Promise<DurableStore> {
  if (s.kind === 'postgres') {
    const { openPostgresStore } = await import('./durable-pg.ts');
    return openPostgresStore(s);
  }
  const { openEmbeddedStore } = await import('./durable-pglite.ts');
  return openEmbeddedStore({ dir: s.dir });
}

// one durable store per engine, like store-for.ts: keyed by the engine's own onClose hook
const opened = new WeakMap<EngineServices['onClose'], Promise<DurableStore>>();

/** The engine's durable store when something opened it already, else undefined: never opens it (a metrics scrape). */
export function openedDurableStore(services: EngineServices): Promise<DurableStore> | undefined {
  return opened.get(services.onClose);
}

/** The engine's durable store, opened on the first call and closed with the engine. Lint never opens it. */
export function durableStoreFor(services: EngineServices): Promise<DurableStore> {
  let p = opened.get(services.onClose);
  if (p) return p;
  if (services.lintOnly) return Promise.reject(new Error('lint opens no durable store'));
  const settings = effectiveDurableSettings(services.settings?.store, services.root);
  const started = performance.now();
  p = openDurableStore(settings).then((store) => {
    services.logger.info(
      { store: store.kind, ms: Math.round(performance.now() - started) },
      `durable store: ${describeDurable(settings)}`,
    );
    return store;
  });
  // a store that failed to open is tried again on the next use
  p.catch(() => opened.delete(services.onClose));
  opened.set(services.onClose, p);
  const mine = p;
  services.onClose(async () => {
    const store = await mine.catch(() => undefined);
    await store?.close();
  });
  return p;
}

/**
 * The engine listens at `url`: on an embedded store, named beside its lock (embedded-lock.ts) so
 * `engine failed` can work through this engine while it holds the store. Returns the withdrawal.
 */
export function announceEngineUrl(services: EngineServices, url: string): () => void {
  let s: DurableSettings;
  try {
    s = effectiveDurableSettings(services.settings?.store, services.root);
  } catch {
    return () => {}; // an unreadable URL file: opening the store will say so
  }
  return s.kind === 'embedded' ? announceListener(s.dir, url) : () => {};
}
