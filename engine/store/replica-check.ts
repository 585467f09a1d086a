// Safe defaults for replicas. Routes that remember keys (webhook dedupe, the gateway's single-use
// confirmations) keep them in the engine's store, memory unless Redis is configured; the outbox
// keeps its rows, the durable marks of those keys, in the durable store, embedded unless
// PostgreSQL is configured. Either is one process's own: two replicas on them would each accept a
// redelivered webhook. An environment that says it runs several replicas (`engine.replicas`, or
// ENGINE_REPLICAS, which the Kubernetes overlays pass) is refused at start with one line saying
// what to set; otherwise the start warns once, loudly, before anyone adds a replica. A simulated
// environment (one process on its simulators) is neither.

import type { Logger } from 'pino';
import { SettingError } from '../core/diagnostics.ts';
import type { EngineServices } from '../pipeline/compile-context.ts';
import { effectiveDurableSettings } from './durable-for.ts';
import { effectiveStoreSettings, keyUses } from './store-for.ts';

/** The process environment variable with the most replicas that run at once (an overlay sets it). */
const REPLICAS_ENV = 'ENGINE_REPLICAS';
const DOCS = 'docs/operations.md, "Replicas and the store"';

/** The replica count the environment states, and where it said so; undefined when it says none. */
function statedReplicas(services: EngineServices, env: NodeJS.ProcessEnv): { count: number; from: string } | undefined {
  const raw = env[REPLICAS_ENV];
  if (raw !== undefined && raw !== '') {
    if (!/^[1-9]\d*$/.test(raw.trim()))
      throw new SettingError(`${REPLICAS_ENV}: '${raw}' is not a replica count (a whole number from 1)`);
    return { count: Number(raw.trim()), from: REPLICAS_ENV };
  }
  const n = services.settings.replicas;
  return n === undefined ? undefined : { count: n, from: 'engine.replicas' };
}

/** The durable store's kind; an unreadable ENGINE_STORE_POSTGRES_URL_FILE is said when the store opens. */
function durableKind(services: EngineServices, env: NodeJS.ProcessEnv): string {
  try {
    return effectiveDurableSettings(services.settings.store, services.root, env).kind;
  } catch {
    return 'postgres';
  }
}

/** What is kept per process that replicas must share, in words, and what to set for it. */
function perProcess(services: EngineServices, env: NodeJS.ProcessEnv): { what: string[]; set: string[] } {
  const uses = keyUses(services);
  const what: string[] = [];
  const set: string[] = [];
  if (uses.claims.length && !effectiveStoreSettings(services.settings.store, env).redis) {
    what.push(`the keys of ${uses.claims.join(', ')} are in this process's memory`);
    set.push('ENGINE_STORE_REDIS_URL (or engine.store.redis.url)');
  }
  if (uses.durable.length && durableKind(services, env) === 'embedded') {
    what.push(`the outbox of ${uses.durable.join(', ')} is in this process's embedded store`);
    set.push('ENGINE_STORE_POSTGRES_URL (or engine.store.postgres.url)');
  }
  return { what, set };
}

/**
 * Refuses a start on several replicas whose routes would remember keys per process (SettingError:
 * one line); warns once when the replica count is not said to be more than one.
 */
export function checkReplicaStore(
  services: EngineServices,
  environment: string,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const replicas = statedReplicas(services, env);
  const { what, set } = perProcess(services, env);
  if (!what.length) return;
  if (replicas && replicas.count > 1)
    throw new SettingError(
      `environment '${environment}' runs ${replicas.count} replicas (${replicas.from}) but ${what.join(' and ')}: set ${set.join(' and ')} so that they share them (${DOCS})`,
    );
  logger.warn(
    { replicas: replicas?.count ?? 'not said', set },
    `ONE REPLICA ONLY: ${what.join(' and ')}; a second replica would process a redelivered webhook again. Set ${set.join(' and ')} before running more than one (${DOCS})`,
  );
}
