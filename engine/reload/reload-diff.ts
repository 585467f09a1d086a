// What a reload changed. A route's fingerprint hashes what its compiled form is built from and a
// file edit can change: its YAML with placeholders resolved from the current values and
// environment, the project files it names (schemas, transforms, templates; a .jsonata file with
// its placeholders resolved from the route's values), the other documents
// of its folder (shared definitions), the client profiles of the folders above it, and the
// expression limits. Routes are compared by id. Documents with their own `values:` (connector.yaml)
// are hashed resolved too, so a values edit that reaches a route only through them counts; a
// route without `values:` is resolved from its connector document's, which the compile recorded;
// a route that takes its connector document's on-exception counts the template files it names.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { parseYamlFile, type YamlSource } from '../core/yaml-source.ts';
import { stepFile } from '../core/step-file.ts';
import { resolvePlaceholders, resolveTextPlaceholders } from '../config/placeholders.ts';
import type { ValuesSet, ValuesFile } from '../config/values.ts';
import type { CompiledRoute } from '../pipeline/route.ts';

export interface RouteChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Fingerprints by route id, for the routes of one load. */
export function fingerprintRoutes(routes: CompiledRoute[], values: ValuesSet, root: string): Map<string, string> {
  const files = new Map<string, string | undefined>();
  const read = (abs: string): string | undefined => {
    if (!files.has(abs)) {
      let text: string | undefined;
      try {
        if (statSync(abs).isFile()) text = readFileSync(abs, 'utf8');
      } catch {
        /* not a file */
      }
      files.set(abs, text);
    }
    return files.get(abs);
  };
  const docs = new Map<string, ReturnType<typeof sharedDoc>>();
  const shared = (abs: string) => {
    if (!docs.has(abs)) docs.set(abs, sharedDoc(abs, read(abs) ?? '', values));
    return docs.get(abs);
  };
  const folders = new Map<string, string>();
  /**
   * The shared documents of `dir`: all but route files, or with `clientsOnly` the clients files (seen from
   * folders below).
   */
  const folderDocs = (dir: string, clientsOnly: boolean): string => {
    const key = `${clientsOnly}\0${dir}`;
    let h = folders.get(key);
    if (h === undefined) {
      const hash = createHash('sha256');
      for (const name of safeList(dir)
        .filter((n) => /\.ya?ml$/.test(n))
        .sort()) {
        const doc = shared(join(dir, name));
        if (doc !== undefined && (!clientsOnly || doc.clients))
          hash.update(name).update('\0').update(doc.text).update('\0');
      }
      h = hash.digest('hex');
      folders.set(key, h);
    }
    return h;
  };
  const top = resolve(root);
  const limits = JSON.stringify(values.environment.engine.expressions);
  const out = new Map<string, string>();
  for (const route of routes) {
    const hash = createHash('sha256').update(limits);
    try {
      const src = parseYamlFile(route.file);
      const raw = src.value as Record<string, unknown>;
      // its own values: or, naming none, its connector document's (route.valuesName says which)
      const vf = route.valuesName ? values.find(route.valuesName) : undefined;
      const resolved = resolvePlaceholders(raw, vf, src).value;
      hash.update(stable(resolved));
      for (const name of pathLike(resolved)) {
        let text = read(stepFile(name, route.file, root));
        // a .jsonata file takes {{properties}} from the route's values: as they resolve now
        if (text !== undefined && name.endsWith('.jsonata')) text = resolveTextPlaceholders(text, vf, name).text;
        if (text !== undefined) hash.update('\0').update(name).update('\0').update(text);
      }
    } catch {
      // the load just compiled this file; should it change in between, it counts as changed
      hash.update(String(Math.random()));
    }
    // the error templates of the connector document's on-exception, when the route takes it
    const from = route.handlersFrom ? shared(resolve(route.handlersFrom)) : undefined;
    for (const name of pathLike((from?.value as Record<string, unknown> | undefined)?.['on-exception'])) {
      const text = read(stepFile(name, route.handlersFrom, root));
      if (text !== undefined) hash.update('\0').update(name).update('\0').update(text);
    }
    const dir = dirname(resolve(route.file));
    hash.update(folderDocs(dir, false));
    // profiles of the folders above are visible to the route too (ClientRegistry.visible)
    for (let up = dir; up.startsWith(top + sep);) {
      up = dirname(up);
      hash.update(folderDocs(up, true));
    }
    out.set(route.id, hash.digest('hex'));
  }
  return out;
}

/** Each route's version (`sha256:` + its fingerprint), which failed exchanges keep: computed once per load. */
export function setRouteVersions(routes: CompiledRoute[], fingerprints: Map<string, string>): void {
  for (const r of routes) {
    const fp = fingerprints.get(r.id);
    if (fp) r.version = `sha256:${fp}`;
  }
}

export function diffRoutes(prev: Map<string, string>, next: Map<string, string>): RouteChanges {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [id, fp] of next) {
    const old = prev.get(id);
    if (old === undefined) added.push(id);
    else if (old !== fp) changed.push(id);
  }
  const removed = [...prev.keys()].filter((id) => !next.has(id));
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort() };
}

/** `1 added (a), 2 changed (b, c)`; `no route changed` when nothing did. */
export function describeChanges(c: RouteChanges): string {
  const part = (n: string[], what: string) => (n.length ? `${n.length} ${what} (${n.join(', ')})` : '');
  const parts = [part(c.added, 'added'), part(c.removed, 'removed'), part(c.changed, 'changed')].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no route changed';
}

/**
 * What a route sees of a non-route document of its folder: with its own `values:` the document
 * with placeholders resolved (a values edit changes it), else its text; undefined for route files,
 * which count only for themselves.
 */
function sharedDoc(
  file: string,
  text: string,
  values: ValuesSet,
): { text: string; clients: boolean; value?: unknown } | undefined {
  // the parse the load just made of this text, while a start shares them (yaml-source.ts)
  let src: YamlSource;
  try {
    src = parseYamlFile(file, text);
  } catch {
    return { text, clients: false };
  }
  const v = src.value;
  if (!v || typeof v !== 'object') return { text, clients: false };
  const raw = v as Record<string, unknown>;
  if ('from' in raw) return undefined;
  const clients = 'clients' in raw;
  const vf = typeof raw.values === 'string' ? values.find(raw.values) : undefined;
  if (!vf) return { text, clients, value: raw };
  try {
    const resolved = resolvePlaceholders(raw, vf, src).value;
    // a profile that extends a client template (routes/connector.yaml) takes the template's
    // placeholders from these values too: any of them may reach its routes
    const extendsAbove = clients && /\bextends\b/.test(text) ? '\0' + allValues(vf) : '';
    return { text: stable(resolved) + extendsAbove, clients, value: resolved };
  } catch {
    return { text, clients, value: raw };
  }
}

/** Every property of a values file as it resolves now (a key that does not resolve, as such). */
function allValues(vf: ValuesFile): string {
  const out: Record<string, unknown> = {};
  for (const k of vf.keysList().sort()) {
    try {
      out[k] = vf.get(k);
    } catch {
      out[k] = '<unresolved>';
    }
  }
  return JSON.stringify(out);
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Strings that may name a project file (`schemas/x.json`, `transforms/a/b.jsonata`, `rate.jsonata` beside the route).
 */
function pathLike(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') {
    if ((/^[\w.@-]+(\/[\w.@-]+)+$/.test(v) || /^[\w.@-]+\.json(ata)?$/.test(v)) && !v.includes('..')) out.add(v);
  } else if (Array.isArray(v)) for (const x of v) pathLike(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) pathLike(x, out);
  return out;
}

/** JSON with sorted keys, so equal documents hash equal. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
