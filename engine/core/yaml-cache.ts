// The parse cache of YAML texts: the plain value of each text that parsed without errors, stored
// as JSON under the SHA-256 of the text, so that a start whose YAML did not change reads JSON
// instead of composing YAML documents (the `yaml` library, cold at start, takes about 3 µs a byte:
// some 100 ms for a project's routes and values). yaml-source.ts composes a document only when a
// position is asked for. One of the start-up caches of disk-cache.ts (where and when it is trusted).

import yamlPackage from 'yaml/package.json' with { type: 'json' };
import { DiskCache, exactInJson, keyOf } from './disk-cache.ts';

/**
 * What a cached value was parsed by: a new parser version or option reads as another cache. Within
 * 2000 entries and 1 MiB (this project's YAML is some 130 KB of it).
 */
const cache = new DiskCache('yaml-values.json', `yaml ${yamlPackage.version} uniqueKeys maxAliasCount=100 format 1`, {
  entries: 2000,
  bytes: 1 << 20,
});

/** The cached value of `text` (a fresh copy), or undefined when it must be parsed. */
export function cachedValue(text: string): { value: unknown } | undefined {
  if (!cache.on) return undefined;
  const j = cache.get(keyOf(text));
  if (j === undefined) return undefined;
  try {
    return { value: JSON.parse(j) as unknown };
  } catch {
    return undefined;
  }
}

/** Keeps the value `text` parsed to, when JSON gives it back exactly. */
export function rememberValue(text: string, value: unknown): void {
  if (cache.on && exactInJson(value)) cache.set(keyOf(text), JSON.stringify(value));
}

/** Writes what this process learnt (as it exits; tests call it). */
export function writeYamlCache(): void {
  cache.write();
}
