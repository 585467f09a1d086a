// Environmental keys (`hubvendor-base-url`, `hubvendor-amqp-password`, ...): never in values files.
// Resolved in order from --set, the process environment (upper snake case), a secrets directory
// (one file per key, as a mounted Kubernetes secret) and values/environments/<env>.yaml `keys`.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type KeySource = 'set' | 'env' | 'secrets' | 'environment-file' | 'sandbox';

export interface ResolvedKey {
  value: string;
  source: KeySource;
}

export interface EnvKeysOptions {
  set?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  secretsDir?: string;
  environmentKeys?: Record<string, string>;
  /** `sandbox:NAME/path` references resolved to the embedded simulators' URLs */
  sandboxUrls?: Record<string, string>;
}

export function envVarName(key: string): string {
  return key.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** Keys whose values are secrets: masked in every log, error and event. */
export function isSecretKey(key: string): boolean {
  return /password|secret|token|client-key|client_key|api-key|apikey|credential|private/i.test(key);
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

  setSandboxUrls(urls: Record<string, string>): void {
    this.opts.sandboxUrls = urls;
    this.cache.clear();
  }

  /** Where a key can be set, for error messages. */
  static howToSet(key: string): string {
    return `set ${envVarName(key)} in the environment, put a file named '${key}' in the --secrets directory, or pass --set ${key}=...`;
  }

  private lookup(key: string): ResolvedKey | undefined {
    const { set, env = process.env, secretsDir, environmentKeys } = this.opts;
    if (set && key in set) return { value: this.sandbox(set[key]), source: 'set' };
    const ev = env[envVarName(key)];
    if (ev !== undefined && ev !== '') return { value: this.sandbox(ev), source: 'env' };
    if (secretsDir) {
      const f = join(secretsDir, key);
      if (existsSync(f)) return { value: readFileSync(f, 'utf8').replace(/\r?\n$/, ''), source: 'secrets' };
    }
    if (environmentKeys && key in environmentKeys) {
      const v = environmentKeys[key];
      return { value: this.sandbox(String(v)), source: v.startsWith('sandbox:') ? 'sandbox' : 'environment-file' };
    }
    return undefined;
  }

  /** `sandbox:hubvendor/path` -> `http://127.0.0.1:PORT/path` once the sandbox runs. */
  sandbox(v: string): string {
    if (!v.startsWith('sandbox:')) return v;
    const rest = v.slice('sandbox:'.length);
    const slash = rest.indexOf('/');
    const name = slash < 0 ? rest : rest.slice(0, slash);
    const path = slash < 0 ? '' : rest.slice(slash);
    const base = this.opts.sandboxUrls?.[name];
    if (!base) throw new Error(`sandbox service '${name}' is not running (referenced as '${v}')`);
    return base.replace(/\/$/, '') + path;
  }
}
