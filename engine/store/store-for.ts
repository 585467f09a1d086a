// Picks the engine's store from its settings: Redis when configured, else memory.

import type { EngineServices } from '../pipeline/compile-context.ts';
import { STORE_DEFAULTS, type StoreSettings } from '../config/engine-settings.ts';
import type { SharedStore } from './store.ts';
import { MemoryStore } from './store-memory.ts';
import { RedisStore } from './store-redis.ts';

/** The process environment variable that overrides `engine.store.redis.url` (it may carry a password). */
const REDIS_URL_ENV = 'ENGINE_STORE_REDIS_URL';

/** The settings in effect: the environment file's, with the URL from the process environment when set. */
export function effectiveStoreSettings(
  settings: StoreSettings | undefined,
  env: NodeJS.ProcessEnv = process.env,
): StoreSettings {
  const url = env[REDIS_URL_ENV] || settings?.redis?.url;
  return {
    inFlightTimeout: settings?.inFlightTimeout ?? STORE_DEFAULTS.inFlightTimeout,
    redis: url
      ? { prefix: STORE_DEFAULTS.prefix, commandTimeout: STORE_DEFAULTS.commandTimeout, ...settings?.redis, url }
      : undefined,
  };
}

// one store per engine: reloads copy the services object but keep its onClose hook (each engine's
// own, so the key is per engine and the store goes with it)
const stores = new WeakMap<EngineServices['onClose'], SharedStore>();

// what remembers keys in each engine, by use: one replica's memory or embedded store cannot serve
// several (replica-check.ts)
const uses = new WeakMap<EngineServices['onClose'], { claims: Set<string>; durable: Set<string> }>();

/**
 * Notes that `user` (a route id, the gateway's confirmations) remembers keys: `claims` in this
 * store (dedupe), `durable` in the durable store (the outbox's rows mark their dedupe keys).
 */
export function noteKeyUse(services: EngineServices, kind: 'claims' | 'durable', user: string): void {
  let u = uses.get(services.onClose);
  if (!u) uses.set(services.onClose, (u = { claims: new Set(), durable: new Set() }));
  u[kind].add(user);
}

/** What noteKeyUse noted, sorted. */
export function keyUses(services: EngineServices): { claims: string[]; durable: string[] } {
  const u = uses.get(services.onClose);
  return { claims: [...(u?.claims ?? [])].sort(), durable: [...(u?.durable ?? [])].sort() };
}

/** The engine's store, made on first use, closed with the engine; lint never connects. `user` remembers keys in it. */
export function storeFor(services: EngineServices, user: string): SharedStore {
  noteKeyUse(services, 'claims', user);
  let store = stores.get(services.onClose);
  if (store) return store;
  const settings = effectiveStoreSettings(services.settings?.store);
  store =
    settings.redis && !services.lintOnly
      ? new RedisStore(settings.redis, settings.inFlightTimeout, services.logger.child({ component: 'store' }))
      : new MemoryStore();
  const s = store;
  stores.set(services.onClose, s);
  services.onClose(() => s.close());
  if (s.kind === 'redis')
    services.logger.info(
      { store: 'redis', prefix: settings.redis!.prefix },
      'store: replicas share remembered keys through Redis',
    );
  return s;
}
