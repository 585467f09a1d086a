// Environmental keys (`acme-base-url`, `acme-amqp-password`, ...): never in values files.
// Resolved in order from --set, the process environment (upper snake case), a secrets directory
// (one file per key, as a mounted Kubernetes secret) and values/environments/<env>.yaml `keys`.
// A value `simulator:NAME/path` is the URL of simulator NAME, once an extension started it.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type KeySource = 'set' | 'env' | 'secrets' | 'environment-file' | 'simulator';

/** The prefix of a reference to a simulator's URL: `simulator:NAME/path`. */
export const SIMULATOR_PREFIX = 'simulator:';

export interface ResolvedKey {
  value: string;
  source: KeySource;
}

export interface EnvKeysOptions {
  set?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  secretsDir?: string;
  environmentKeys?: Record<string, string>;
  /** the simulators' base URLs by name, which `simulator:NAME/path` references resolve to */
  simulatorUrls?: Record<string, string>;
}

export function envVarName(key: string): string {
  return key.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** Keys whose values are secrets: masked in every log, error and event. */
export function isSecretKey(key: string): boolean {
  return /password|secret|token|client-key|client_key|api-key|apikey|credential|private/i.test(key);
}

/** A `simulator:NAME` reference to a simulator that is not running (or that lint knows no extension starts). */
export class UnknownSimulator extends Error {
  constructor(name: string, known: string[]) {
    super(
      `names simulator '${name}', which is not running (${known.length ? `simulators: ${known.join(', ')}` : 'no simulators run in this environment'})`,
    );
    this.name = 'UnknownSimulator';
  }
}

export class EnvKeys {
  private cache = new Map<string, ResolvedKey | null>();
  constructor(private opts: EnvKeysOptions) {}

  resolve(key: string): ResolvedKey | undefined {
    if (this.cache.has(key)) return this.cache.get(key) ?? undefined;
    const r = this.lookup(key);
    this.cache.set(key, r ?? null);
    return r;
  }

  setSimulatorUrls(urls: Record<string, string>): void {
    this.opts.simulatorUrls = urls;
    this.cache.clear();
  }

  /** Where a key can be set, for error messages. */
  static howToSet(key: string): string {
    return `set ${envVarName(key)} in the environment, put a file named '${key}' in the --secrets directory, or pass --set ${key}=...`;
  }

  private lookup(key: string): ResolvedKey | undefined {
    const { set, env = process.env, secretsDir, environmentKeys } = this.opts;
    if (set && key in set) return { value: this.simulator(set[key]), source: 'set' };
    const ev = env[envVarName(key)];
    if (ev !== undefined && ev !== '') return { value: this.simulator(ev), source: 'env' };
    if (secretsDir) {
      const f = join(secretsDir, key);
      if (existsSync(f)) return { value: readFileSync(f, 'utf8').replace(/\r?\n$/, ''), source: 'secrets' };
    }
    if (environmentKeys && key in environmentKeys) {
      const v = environmentKeys[key];
      return {
        value: this.simulator(String(v)),
        source: v.startsWith(SIMULATOR_PREFIX) ? 'simulator' : 'environment-file',
      };
    }
    return undefined;
  }

  /** `simulator:acme/path` -> `http://127.0.0.1:PORT/path` once simulator `acme` runs. */
  simulator(v: string): string {
    if (!v.startsWith(SIMULATOR_PREFIX)) return v;
    const rest = v.slice(SIMULATOR_PREFIX.length);
    const slash = rest.indexOf('/');
    const name = slash < 0 ? rest : rest.slice(0, slash);
    const path = slash < 0 ? '' : rest.slice(slash);
    const base = this.opts.simulatorUrls?.[name];
    if (!base) throw new UnknownSimulator(name, Object.keys(this.opts.simulatorUrls ?? {}));
    return base.replace(/\/$/, '') + path;
  }
}
