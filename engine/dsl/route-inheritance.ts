// What one route takes from elsewhere, as data: its connector id and values file and where each
// came from (the route or its folder's connector document), each client profile its steps name
// as it is after `extends` (secrets masked) with the place every setting was written and, for a
// {{placeholder}}, the values file and line it resolved from, and the on-exception handlers it
// runs (its own or its folder's). `engine routes --explain ID` prints it (cli/route-explain.ts);
// the console's route page shows it (console/views.ts). Computed when asked, from the client
// profiles of the load that compiled the route.

import { relative } from 'node:path';
import { parseYamlFile, locate, type YamlSource } from '../core/yaml-source.ts';
import { applyParams } from './route-instances.ts';
import type { ClientRegistry } from './clients.ts';
import type { CompiledRoute } from '../pipeline/route.ts';
import type { ValuesFile, ValuesSet } from '../config/values.ts';
import { PLACEHOLDER } from '../config/placeholders.ts';
import {
  compileSecrets,
  isSecretHeader,
  maskDeep,
  maskSecret,
  maskText,
  valuesSecrets,
  type Secrets,
} from '../observability/mask.ts';

export interface RouteInheritance {
  id: string;
  file: string;
  /**
   * `from`: the connector document naming it; `property`: the values property (the former place); neither: the route's
   * own
   */
  connector?: { id: string; from?: string; property?: string };
  values?: { name: string; file: string; from?: string };
  clients: ClientInheritance[];
  onException: { from?: string; handlers: HandlerView[] };
}

export interface ClientInheritance {
  name: string;
  /** the document defining the profile the route's steps see; undefined: no such profile */
  file?: string;
  /** the profiles it extends, nearest first */
  extends: { name: string; file: string }[];
  /** after extends, placeholders resolved, secrets masked */
  settings: unknown;
  /** where each setting was written (nearest profile wins), and the values property behind a placeholder */
  sources: SettingSource[];
}

export interface SettingSource {
  /** dotted path in the profile, e.g. retry.max-retries */
  setting: string;
  /** its value after extends, as `settings` shows it (masked) */
  value: string;
  /** `file:line` where the setting was written */
  at: string;
  /** the profile that wrote it */
  profile: string;
  /** the values properties of its placeholders, with `file:line` of each as this environment sets it */
  properties: { key: string; at: string; origin: string }[];
}

export interface HandlerView {
  when: string;
  template?: string;
  steps: number;
  at: string;
}

/** The client profiles of the load each route came from: asked only by --explain and the console. */
const loads = new WeakMap<CompiledRoute, ClientRegistry>();

/** Called by the loader for each route it compiled. */
export function rememberClients(route: CompiledRoute, clients: ClientRegistry): void {
  loads.set(route, clients);
}

/** What `route` inherits; files named relative to `root`. */
export function routeInheritance(route: CompiledRoute, values: ValuesSet, root: string): RouteInheritance {
  const rel = (f: string) => relative(root, f) || f;
  const file = values.find(route.valuesName ?? '\0');
  const secrets = compileSecrets(valuesSecrets(values));
  const own = ownKeys(route);
  const out: RouteInheritance = {
    id: route.id,
    file: rel(route.file),
    clients: [],
    onException: {
      ...(route.handlersFrom ? { from: rel(route.handlersFrom) } : {}),
      handlers: handlersOf(route, file, rel),
    },
  };
  const clients = loads.get(route);
  const doc = clients?.connectorOf(route.file);
  if (route.connector) {
    const where = file?.has('connector') ? file.where('connector') : undefined;
    out.connector =
      own.connector !== undefined
        ? { id: route.connector }
        : doc?.connector !== undefined
          ? { id: route.connector, from: rel(doc.src.file) }
          : { id: route.connector, ...(where ? { property: `connector (${rel(where.file)}:${where.line})` } : {}) };
  }
  if (file)
    out.values = {
      name: file.name,
      file: rel(file.file),
      ...(route.valuesFrom ? { from: rel(route.valuesFrom) } : {}),
    };
  for (const name of route.clients ?? []) {
    const p = clients?.profileOf(route.file, name);
    const lineage = clients?.lineage(route.file, name) ?? [];
    if (!p || !lineage.length) {
      out.clients.push({ name, extends: [], settings: undefined, sources: [] });
      continue;
    }
    const settings = masked(p.settings, secrets);
    out.clients.push({
      name,
      file: rel(p.file),
      extends: lineage.slice(1).map((l) => ({ name: l.name, file: rel(l.src.file) })),
      settings,
      sources: sourcesOf(lineage, settings, rel),
    });
  }
  return out;
}

/** The keys the route file says itself (a route template's instance: as applied). */
function ownKeys(route: CompiledRoute): Record<string, unknown> {
  try {
    const v = parseYamlFile(route.file).value as Record<string, unknown>;
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

type Lineage = ReturnType<ClientRegistry['lineage']>;

/** Each leaf setting of a profile with the place it was written: the profile's own first, then what it extends. */
function sourcesOf(lineage: Lineage, settings: unknown, rel: (f: string) => string): SettingSource[] {
  const seen = new Map<string, SettingSource>();
  for (const level of lineage) {
    for (const [path, written] of leaves(level.written)) {
      const setting = path.join('.');
      if (setting === 'extends' || setting === 'description' || seen.has(setting)) continue;
      const { line } = locate(level.src, ['clients', level.name, ...path]);
      seen.set(setting, {
        setting,
        value: shown(
          path.reduce<unknown>(
            (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
            settings,
          ),
        ),
        at: `${rel(level.src.file)}:${line}`,
        profile: level.name,
        properties: typeof written === 'string' ? propertiesOf(written, level.values, rel) : [],
      });
    }
  }
  return [...seen.values()].sort((a, b) => a.setting.localeCompare(b.setting));
}

const shown = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function propertiesOf(
  text: string,
  values: ValuesFile | undefined,
  rel: (f: string) => string,
): SettingSource['properties'] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => {
    const key = m[1]!;
    if (!values?.has(key)) return { key, at: values ? `not in ${rel(values.file)}` : 'no values file', origin: 'none' };
    const w = values.where(key);
    const origin = values.props.get(key)!.origin;
    return { key, at: w.file === '--set' ? '--set' : `${rel(w.file)}:${w.line}`, origin };
  });
}

/** [path, value] of every scalar or list in a settings map. */
function leaves(v: unknown, path: string[] = []): [string[], unknown][] {
  if (v && typeof v === 'object' && !Array.isArray(v))
    return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return path.length ? [[path, v]] : [];
}

/**
 * A profile's settings as shown: literal headers and credential headers masked, configured secrets masked wherever
 * they stand.
 */
function masked(settings: Record<string, unknown>, secrets: Secrets): unknown {
  const s = { ...settings } as Record<string, unknown>;
  const headers = (v: unknown, all: boolean) =>
    Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, all || isSecretHeader(k) ? maskSecret(x) : x]),
    );
  if (s['static-headers']) s['static-headers'] = headers(s['static-headers'], true);
  if (s.headers) s.headers = headers(s.headers, false);
  return maskDeep(s, secrets, Infinity);
}

/** The on-exception handlers the route runs, read from the file they are written in. */
function handlersOf(route: CompiledRoute, values: ValuesFile | undefined, rel: (f: string) => string): HandlerView[] {
  // a template named through a placeholder (transforms/acme/{{errorTemplate}}): shown as resolved
  const text = (t: string) => t.replace(PLACEHOLDER, (m, k: string) => (values?.has(k) ? String(values.get(k)) : m));
  const file = route.handlersFrom ?? route.file;
  let src: YamlSource;
  try {
    src = parseYamlFile(file);
  } catch {
    return [];
  }
  let doc = (src.value ?? {}) as Record<string, unknown>;
  if (!route.handlersFrom && route.instance) doc = applyParams(doc, route.instance) as Record<string, unknown>;
  const list = doc['on-exception'];
  return (Array.isArray(list) ? list : []).map((h, i) => {
    const x = (h && typeof h === 'object' ? h : {}) as Record<string, unknown>;
    return {
      when: whenLabel(x.when),
      ...(typeof x.template === 'string' ? { template: text(x.template) } : x.problem ? { template: 'problem' } : {}),
      steps: Array.isArray(x.steps) ? x.steps.length : 0,
      at: `${rel(file)}:${locate(src, ['on-exception', i]).line}`,
    };
  });
}

function whenLabel(when: unknown): string {
  if (when === undefined) return 'any error';
  if (typeof when === 'string') return maskText(when, undefined, 80);
  return Object.entries(when as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('; ');
}
