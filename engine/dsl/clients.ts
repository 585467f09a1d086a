// Client profiles: a vendor's HTTP client (base URL, timeouts, retry, proxy, forwarded and static
// headers, pool size) or the event hub producer (URL, timeouts, retry, event defaults) is said once
// in a `clients:` document of the connector's route folder (routes/<connector>/connector.yaml) and
// named by `to-http` / `to-eventhub` steps (`client: acme`), which add only what differs. The
// loader finds the profile and the step kind's `withClient` merges it into the step before it
// compiles, so the step compiles exactly what it would have compiled from a step that spelt
// everything out.
//
// A clients document without `values:` (routes/connector.yaml) holds client templates: a profile
// with placeholders there is resolved, for each connector document whose profile extends it, from
// that document's values. One vendor's client is then said once for the connectors that call it
// (the ACH outbound and inbound connectors), and the timeouts and retry settings every connector
// reads from the same property names once for all of them.
//
// The same document is the connector document of its folder: its `values:` is the values file of
// every route of the folder that names none, and its `on-exception:` the handlers of every route
// of the folder that has none (route-loader.ts compiles them, once).

import { dirname, sep } from 'node:path';
import { isMap, isScalar } from 'yaml';
import { diagAt, type YamlSource, type YamlPath } from '../core/yaml-source.ts';
import { checkConfig } from '../schemas/config-check.ts';
import { ConfigError, didYouMean, markValueProblem, type Diagnostic } from '../core/diagnostics.ts';
import { placeDiagnostics, resolvePlaceholders } from '../config/placeholders.ts';
import { compileExpression } from '../expressions/expressions.ts';
import {
  retrySchema,
  timeoutsSchema,
  checkedRetrySettings,
  BASE_URL_PROPERTIES,
  OUTBOX_SCHEMA,
} from '../steps/shared-schemas.ts';
import { mergeSettings, type ClientProfile, type Settings } from '../steps/client-profile.ts';
import {
  circuitBreakerSchema,
  bulkheadSchema,
  retryBudgetSchema,
  toGuardSettings,
  GUARD_KEYS,
} from '../steps/guard-schemas.ts';
import type { PlaceholderUse } from '../config/placeholders.ts';
import type { ValuesSet, ValuesFile } from '../config/values.ts';
import { DEFAULT_HANDLER_SCHEMA } from './route-schema.ts';

/** The keys a profile may set; a step's own value of the same key wins (maps merge, lists join). */
export const CLIENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'a client profile: what every call to one vendor (to-http) or to the event hub (to-eventhub) shares',
  properties: {
    description: { type: 'string' },
    extends: {
      type: 'string',
      description:
        'another client of this folder or a folder above (a template of routes/connector.yaml) whose settings this one starts from; the same name is the client of the folders above',
    },
    'base-url': {
      type: 'string',
      description: 'absolute URL the `path` of a step is appended to, e.g. "{{acme.baseUrl}}"',
    },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'header: JSONata, sent on every call',
    },
    'static-headers': {
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
      description: 'header: literal value (secrets go here); empty values are left out',
    },
    'forward-headers': {
      type: 'array',
      items: { type: 'string' },
      description: 'incoming headers passed on unchanged (e.g. authorization)',
    },
    timeouts: timeoutsSchema,
    retry: retrySchema,
    proxy: {
      anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }],
      description: 'send through the proxy of HTTP_PROXY / HTTPS_PROXY (http.client.proxy.activate)',
    },
    connections: {
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: '^[1-9][0-9]*$' },
      ],
      description: 'pool size per vendor origin (connectionsPerRoute)',
    },
    'idempotency-header': { type: 'string', description: 'header carrying the idempotency-key of the steps' },
    'circuit-breaker': circuitBreakerSchema,
    bulkhead: bulkheadSchema,
    'retry-budget': retryBudgetSchema,
    event: {
      type: 'object',
      additionalProperties: false,
      description:
        'makes this an event hub profile (for to-eventhub steps): CloudEvents attributes every event of it shares; a step may override them',
      properties: {
        source: { type: 'string', description: 'CloudEvents source' },
        version: { type: 'string', description: 'schema version of the data (dataversion, dataschema)' },
        topic: { type: 'string', description: 'topic, sent as the `topic` extension attribute' },
        outbox: OUTBOX_SCHEMA,
      },
    },
  },
};

/** A `clients:` document: profiles by name, their placeholders resolved from `values`. */
const CLIENTS_DOC_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Clients',
  description:
    'Client profiles of one connector, named by the to-http and to-eventhub steps of the routes in this folder (`client: <name>`).',
  type: 'object',
  additionalProperties: false,
  required: ['clients'],
  properties: {
    connector: {
      type: 'string',
      description:
        'connector id of every route of this folder that names none, e.g. gc-acme-foreign-exchange-connector (said here once: the table of `engine routes`, OpenAPI tags, traces)',
    },
    values: {
      type: 'string',
      description:
        'values file whose properties {{placeholders}} resolve from, e.g. v2/payment-v2; also the values file of every route of this folder that names none',
    },
    'on-exception': {
      type: 'array',
      items: { $ref: '#/$defs/handler' },
      description:
        "error handlers of every route of this folder without an on-exception of its own (a route opts out with `on-exception: []`); placeholders resolve from this document's values",
    },
    clients: {
      type: 'object',
      propertyNames: { pattern: '^[a-z0-9][a-z0-9-]*$' },
      additionalProperties: CLIENT_SCHEMA,
    },
  },
  $defs: { handler: DEFAULT_HANDLER_SCHEMA },
};

/**
 * The schema `load` checks with: names are checked by `badNames`, which says so at the name rather
 * than at `clients:`; the on-exception handlers, and that they are a list, as they compile
 * (route-loader.ts: one "must be a list of handlers", as for a route, not a second message here).
 */
export const LOAD_SCHEMA = {
  ...CLIENTS_DOC_SCHEMA,
  properties: {
    ...CLIENTS_DOC_SCHEMA.properties,
    'on-exception': {},
    clients: { type: 'object', additionalProperties: CLIENT_SCHEMA },
  },
  $defs: {},
};

/** What a connector document gives the routes of its folder. */
export interface ConnectorDoc {
  src: YamlSource;
  dir: string;
  /** its `connector:`, the connector id of the folder's routes */
  connector?: string;
  /** its `values:` as written, and the file (undefined when there is no such file: reported at the document) */
  valuesName?: string;
  values?: ValuesFile;
  /** its `on-exception:` with placeholders resolved; undefined when it has none */
  onException?: unknown;
  /**
   * its on-exception cannot compile: a placeholder did not resolve or its values file is missing (said at the
   * document)
   */
  onExceptionBroken?: boolean;
}

interface Profile {
  name: string;
  dir: string;
  src: YamlSource;
  /** settings with `extends` applied (filled by `link`) */
  settings: Settings;
  own: Settings;
  used: boolean;
  /** it has problems (reported where it is defined) */
  invalid: boolean;
  /** the broken profile it extends, which makes it unusable too */
  brokenParent?: string;
  /** the values its document's placeholders resolved from */
  values?: ValuesFile;
  /** a template: written with placeholders in a document without values, resolved by each profile extending it */
  template?: boolean;
}

export class ClientRegistry {
  private profiles: Profile[] = [];
  /** the connector documents loaded, by folder (the first of a folder that gives values or on-exception) */
  private docs = new Map<string, ConnectorDoc>();
  /** clients files named on the command line (not only found beside a route): their unused profiles are reported */
  private reported = new Set<string>();

  /**
   * Loads one `clients:` document; `explicit` when the file was among the paths given. A profile
   * with problems is kept, marked broken, so a step naming it is told so rather than that the
   * client is unknown; each problem is reported once, here.
   */
  load(src: YamlSource, valuesSet: ValuesSet, explicit = true): Diagnostic[] {
    const raw = src.value as Record<string, unknown>;
    if (explicit) this.reported.add(src.file);
    const dir = dirname(src.file);
    const connector: ConnectorDoc = {
      src,
      dir,
      valuesName: typeof raw.values === 'string' ? raw.values : undefined,
      connector: typeof raw.connector === 'string' ? raw.connector : undefined,
    };
    const shared = this.share(connector, raw);
    let values: ValuesFile | undefined;
    if (typeof raw.values === 'string') {
      values = valuesSet.find(raw.values);
      if (!values) {
        const s = didYouMean(raw.values, valuesSet.names());
        const d = diagAt(
          src,
          ['values'],
          `values file '${raw.values}' not found under ${valuesSet.dir}${s ? `; did you mean '${s}'?` : `; available: ${valuesSet.names().join(', ')}`}`,
        );
        connector.onExceptionBroken = raw['on-exception'] !== undefined;
        return [d, ...shared, ...this.register(src, raw.clients, () => true)];
      }
    }
    connector.values = values;
    if (!values && raw['on-exception'] === undefined && JSON.stringify(raw.clients ?? {}).includes('{{'))
      return [...shared, ...this.loadTemplates(src, raw)];
    // checked as routes are: after placeholders took the values' typed values
    const uses: PlaceholderUse[] = [];
    const { 'on-exception': handlers, ...rest } = raw;
    const resolved = resolvePlaceholders(rest, values, src, uses, 'this document');
    const doc = resolved.value as { clients?: unknown };
    const schema = checkConfig(
      handlers === undefined ? doc : { ...doc, 'on-exception': handlers },
      LOAD_SCHEMA,
      src,
      [],
      'clients file',
    );
    // a placeholder that did not resolve also fails the schema where it stands: said once, as the placeholder
    const checks = [...badNames(src, doc.clients), ...schema];
    // which profiles are broken is told where their problems stand here, before a value's goes to its values file
    const here = placeDiagnostics(resolved.diagnostics, checks, uses, src, undefined);
    const diags = placeDiagnostics(resolved.diagnostics, checks, uses, src, values);
    // where each profile stands, worked out only when a problem must be placed
    let ranges: ReturnType<typeof profileRanges> | undefined;
    const broken = (name: string) =>
      !NAME.test(name) || here.some((d) => (ranges ??= profileRanges(src)).get(name)?.(d));
    if (handlers !== undefined) {
      // resolved on their own, so that their problems are known apart from the profiles'
      const h = resolvePlaceholders({ 'on-exception': handlers }, values, src, [], 'this document');
      diags.push(...h.diagnostics);
      connector.onException = (h.value as Record<string, unknown>)['on-exception'];
      connector.onExceptionBroken = h.diagnostics.length > 0;
    }
    diags.push(...shared, ...this.register(src, doc.clients, broken, uses, values));
    return diags;
  }

  /**
   * A document of client templates (no values): checked as an editor checks it (a placeholder may
   * stand wherever a value goes), each profile with a placeholder kept unresolved for the profiles
   * that extend it.
   */
  private loadTemplates(src: YamlSource, raw: Record<string, unknown>): Diagnostic[] {
    const diags = [
      ...badNames(src, raw.clients),
      ...checkConfig(raw, CLIENT_TEMPLATES_SCHEMA, src, [], 'clients file'),
    ];
    let ranges: ReturnType<typeof profileRanges> | undefined;
    const broken = (name: string) =>
      !NAME.test(name) || diags.some((d) => (ranges ??= profileRanges(src)).get(name)?.(d));
    diags.push(...this.register(src, raw.clients, broken, [], undefined, true));
    return diags;
  }

  /**
   * Makes `doc` the connector document of its folder when it gives the routes values or
   * on-exception; a second document of the folder that gives them other values, or any
   * on-exception, is refused.
   */
  private share(doc: ConnectorDoc, raw: Record<string, unknown>): Diagnostic[] {
    if (raw.values === undefined && raw['on-exception'] === undefined && raw.connector === undefined) return [];
    const first = this.docs.get(doc.dir);
    if (!first) {
      this.docs.set(doc.dir, doc);
      return [];
    }
    const out: Diagnostic[] = [];
    if (raw.connector !== undefined && raw.connector !== first.connector) {
      out.push(
        diagAt(
          doc.src,
          ['connector'],
          `the routes of this folder take their defaults (connector, values, on-exception) from ${first.src.file}: say the connector id there`,
        ),
      );
    }
    if (raw.values !== undefined && raw.values !== first.valuesName) {
      out.push(
        diagAt(
          doc.src,
          ['values'],
          `the routes of this folder already take values '${first.valuesName}' from ${first.src.file}: one connector document per folder gives them values (this document's placeholders may still use its own)`,
        ),
      );
    }
    if (raw['on-exception'] !== undefined) {
      out.push(
        diagAt(
          doc.src,
          ['on-exception'],
          `the routes of this folder take their defaults (values, on-exception) from ${first.src.file}: say on-exception there`,
          true,
        ),
      );
    }
    return out;
  }

  /** The connector document of the folder a route file is in, if one gives its routes values or on-exception. */
  connectorOf(routeFile: string): ConnectorDoc | undefined {
    return this.docs.get(dirname(routeFile));
  }

  /** Every connector document that gives its folder's routes something. */
  connectors(): ConnectorDoc[] {
    return [...this.docs.values()];
  }

  /**
   * Adds the profiles of one file; those `broken` says have problems are checked no further. Of a
   * document of `templates`, a profile with placeholders is a template, checked once resolved.
   */
  private register(
    src: YamlSource,
    clients: unknown,
    broken: (name: string) => boolean,
    uses: PlaceholderUse[] = [],
    values?: ValuesFile,
    templates = false,
  ): Diagnostic[] {
    if (!clients || typeof clients !== 'object' || Array.isArray(clients)) return [];
    const diags: Diagnostic[] = [];
    const dir = dirname(src.file);
    for (const [name, settings] of Object.entries(clients as Record<string, unknown>)) {
      const own = (settings && typeof settings === 'object' && !Array.isArray(settings) ? settings : {}) as Settings;
      let invalid = broken(name);
      const template = templates && JSON.stringify(own).includes('{{');
      if (!invalid && !template) {
        // a value that came from the values file is said at its line there
        const d = placeDiagnostics([], checkProfile(own, src, ['clients', name]), uses, src, values);
        diags.push(...d);
        invalid = d.length > 0;
      }
      const dup = this.profiles.find((p) => p.dir === dir && p.name === name);
      if (dup) {
        diags.push(diagAt(src, ['clients', name], `client '${name}' is also defined in ${dup.src.file}`, true));
        continue;
      }
      const baseUrlFrom = uses
        .filter((u) => u.path.length === 3 && u.path[1] === name && u.path[2] === 'base-url')
        .map((u) => u.key);
      this.profiles.push({
        name,
        dir,
        src,
        own: baseUrlFrom.length ? { ...own, [BASE_URL_PROPERTIES]: baseUrlFrom } : own,
        settings: own,
        used: false,
        invalid,
        values,
        template,
      });
    }
    return diags;
  }

  /** Applies `extends` once every clients file is loaded. */
  link(): Diagnostic[] {
    const diags: Diagnostic[] = [];
    const done = new Map<Profile, Settings>();
    const settle = (p: Profile, chain: Profile[]): Settings => {
      const known = done.get(p);
      if (known) return known;
      let s = p.own;
      if (p.own.extends !== undefined && !p.template) {
        const at = ['clients', p.name, 'extends'];
        // the same name: the client of the folders above (a template, say)
        const scope = this.visible(p.dir, p);
        const parent = scope.get(String(p.own.extends));
        // a step naming it is told it has errors, not what it lacks because of them (a base-url)
        if (!parent) {
          diags.push(
            diagAt(p.src, at, `unknown client '${p.own.extends}'${hint(String(p.own.extends), scope.keys())}`),
          );
          p.invalid = true;
        } else if (chain.includes(parent)) {
          diags.push(
            diagAt(
              p.src,
              at,
              `client '${p.name}' extends itself (${[...chain, parent].map((c) => c.name).join(' -> ')})`,
            ),
          );
          p.invalid = true;
        } else if (parent.template) {
          parent.used = true;
          const base = this.instantiate(parent, p, diags);
          if (base) s = mergeSettings(base, p.own);
          else if (!p.invalid) p.brokenParent = parent.name;
        } else {
          parent.used = true;
          s = mergeSettings(settle(parent, [...chain, p]), p.own);
          // a parent that is broken only through what it extends breaks this one too (not "no base-url")
          if ((parent.invalid || parent.brokenParent) && !p.invalid)
            p.brokenParent = parent.brokenParent ?? parent.name;
        }
      }
      const { extends: _, description: __, ...rest } = s;
      // a symbol key: not copied by the rest pattern above in every engine, so said explicitly
      if (s[BASE_URL_PROPERTIES as any]) (rest as any)[BASE_URL_PROPERTIES] = s[BASE_URL_PROPERTIES as any];
      done.set(p, rest);
      return rest;
    };
    for (const p of this.profiles) p.settings = settle(p, [p]);
    return diags;
  }

  /**
   * The template `t` with the placeholders resolved from the values of the document of `p`, which
   * extends it, and checked as a profile of that document would be; undefined when that fails (each
   * problem said at the template, naming the document it was resolved for).
   */
  private instantiate(t: Profile, p: Profile, diags: Diagnostic[]): Settings | undefined {
    const forWhom = ` (resolved for ${p.src.file}, values '${p.values?.name ?? '-'}')`;
    if (t.invalid) return undefined;
    if (!p.values) {
      diags.push(
        diagAt(
          p.src,
          ['clients', p.name, 'extends'],
          `client template '${t.name}' (${t.src.file}) takes its placeholders from the values of the document that extends it: add 'values: <name>' here`,
        ),
      );
      return undefined;
    }
    const own = this.templateSettings(t, [t], diags);
    if (!own) return undefined;
    const uses: PlaceholderUse[] = [];
    const resolved = resolvePlaceholders({ clients: { [t.name]: own } }, p.values, t.src, uses, p.src.file);
    const settings = (resolved.value as { clients: Record<string, Settings> }).clients[t.name];
    const found = placeDiagnostics(
      resolved.diagnostics,
      checkConfig(settings, CLIENT_SCHEMA, t.src, ['clients', t.name], 'client'),
      uses,
      t.src,
      p.values,
    );
    if (!found.length)
      found.push(...placeDiagnostics([], checkProfile(settings, t.src, ['clients', t.name]), uses, t.src, p.values));
    const said = new Set(diags.map((d) => `${d.file}:${d.line}:${d.col}:${d.message}`));
    for (const d of found) {
      const out = { ...d, message: d.message + forWhom };
      if (!said.has(`${out.file}:${out.line}:${out.col}:${out.message}`)) diags.push(out);
    }
    if (found.length) return undefined;
    const { extends: _, description: __, ...rest } = settings;
    const baseUrlFrom = uses.filter((u) => u.path.length === 3 && u.path[2] === 'base-url').map((u) => u.key);
    if (baseUrlFrom.length) (rest as any)[BASE_URL_PROPERTIES] = baseUrlFrom;
    return rest;
  }

  /** A template's settings as written, with those of the templates it extends (same document or above) under them. */
  private templateSettings(t: Profile, chain: Profile[], diags: Diagnostic[]): Settings | undefined {
    if (t.own.extends === undefined) return t.own;
    const at = ['clients', t.name, 'extends'];
    const scope = this.visible(t.dir, t);
    const parent = scope.get(String(t.own.extends));
    const say = (m: string) => {
      const d = diagAt(t.src, at, m);
      if (!diags.some((x) => x.line === d.line && x.col === d.col && x.message === d.message)) diags.push(d);
    };
    if (!parent) {
      say(`unknown client '${t.own.extends}'${hint(String(t.own.extends), scope.keys())}`);
      return undefined;
    }
    if (chain.includes(parent)) {
      say(`client '${t.name}' extends itself (${[...chain, parent].map((c) => c.name).join(' -> ')})`);
      return undefined;
    }
    if (!parent.template) {
      say(
        `client template '${t.name}' extends '${parent.name}', which is no template (it has no placeholders): a template extends templates`,
      );
      return undefined;
    }
    parent.used = true;
    const base = this.templateSettings(parent, [...chain, parent], diags);
    return base && mergeSettings(base, t.own);
  }

  /**
   * The profiles a route file sees: those of its folder and the folders above, the nearest first;
   * without `except` (a profile looking for what it extends: the one of that name above it).
   */
  private visible(dir: string, except?: Profile): Map<string, Profile> {
    const out = new Map<string, Profile>();
    for (const p of this.profiles) {
      if (p === except) continue;
      if (dir !== p.dir && !dir.startsWith(p.dir + sep) && !dir.startsWith(p.dir + '/')) continue;
      const prev = out.get(p.name);
      if (!prev || p.dir.length > prev.dir.length) out.set(p.name, p);
    }
    return out;
  }

  /** The profile `name` a route file's steps see: its settings after `extends`, and the document defining it. */
  profileOf(routeFile: string, name: string): { file: string; settings: Settings } | undefined {
    const p = this.visible(dirname(routeFile)).get(name);
    return p && { file: p.src.file, settings: p.settings };
  }

  /**
   * Where the profile `name` a route file's steps see comes from, the profile itself first, then
   * what it extends, up to the last template: each as written (placeholders unresolved), with the
   * document defining it and the values its placeholders resolved from (a template's: those of the
   * profile extending it). `engine routes --explain` and the console show it (route-inheritance.ts).
   */
  lineage(
    routeFile: string,
    name: string,
  ): { name: string; src: YamlSource; written: Settings; values?: ValuesFile }[] {
    const out: { name: string; src: YamlSource; written: Settings; values?: ValuesFile }[] = [];
    let p = this.visible(dirname(routeFile)).get(name);
    let values: ValuesFile | undefined;
    while (p && !out.some((x) => x.src === p!.src && x.name === p!.name)) {
      const doc = (p.src.value ?? {}) as { clients?: Record<string, unknown> };
      const w = doc.clients?.[p.name];
      const written = (w && typeof w === 'object' && !Array.isArray(w) ? w : {}) as Settings;
      values = p.values ?? values;
      out.push({ name: p.name, src: p.src, written, values });
      if (written.extends === undefined) break;
      p = this.visible(p.dir, p).get(String(written.extends));
    }
    return out;
  }

  /** Marks a profile as used by a route (also when that route fails to compile for another reason). */
  markUsed(routeFile: string, name: string): void {
    const p = this.visible(dirname(routeFile)).get(name);
    if (p) p.used = true;
  }

  /**
   * The step config a step naming a client profile compiles from: `merge` (the step kind's
   * `withClient`) puts the profile's settings under the step's own. Throws a ConfigError at the
   * offending key of the step.
   */
  expand(cfg: Settings, routeFile: string, merge: (p: ClientProfile, cfg: Settings) => Settings): Settings {
    if (cfg.client === undefined) {
      if (cfg.path !== undefined)
        throw new ConfigError(
          "'path' is relative to a client's base-url: add 'client: <name>' (a profile of connector.yaml), or give the whole 'url'",
          ['path'],
        );
      return cfg;
    }
    if (cfg.url !== undefined)
      throw new ConfigError("a step with a client gives 'path' (appended to the client's base-url), not 'url'", [
        'url',
      ]);
    const scope = this.visible(dirname(routeFile));
    const p = scope.get(cfg.client);
    if (!p) {
      const where = scope.size
        ? `clients here: ${[...scope.keys()].join(', ')}`
        : 'no clients file (clients: ...) in this folder or above';
      const s = didYouMean(cfg.client, scope.keys());
      throw new ConfigError(`unknown client '${cfg.client}'${s ? `; did you mean '${s}'?` : ` (${where})`}`, [
        'client',
      ]);
    }
    p.used = true;
    if (p.template)
      throw new ConfigError(
        `client '${p.name}' is a template of ${p.src.file}, whose placeholders take the values of the document that extends it: extend it in the connector.yaml of this folder (${p.name}: { extends: ${p.name} })`,
        ['client'],
      );
    if (p.invalid) throw new ConfigError(`client '${p.name}' has errors (see above)`, ['client']);
    if (p.brokenParent)
      throw new ConfigError(`client '${p.name}' extends '${p.brokenParent}', which has errors (see above)`, ['client']);
    if (p.settings['base-url'] === undefined) throw new ConfigError(`client '${p.name}' has no base-url`, ['client']);
    return merge({ name: p.name, settings: p.settings, file: p.src.file }, cfg);
  }

  /**
   * A warning per connector document, named on the command line, whose on-exception no route of
   * its folder takes (each says its own): `inheriting` holds the documents some route took it from.
   */
  unusedOnException(inheriting: Set<ConnectorDoc>): Diagnostic[] {
    return this.connectors()
      .filter((c) => c.onException !== undefined && !inheriting.has(c) && this.reported.has(c.src.file))
      .map((c) => ({
        ...diagAt(
          c.src,
          ['on-exception'],
          "on-exception is taken by no route of this folder (each has its own on-exception): remove it, or drop the routes' own where they say the same",
          true,
        ),
        severity: 'warning' as const,
      }));
  }

  /** One diagnostic per profile no route (nor other profile) uses, in clients files named on the command line. */
  unused(): Diagnostic[] {
    return this.profiles
      .filter((p) => !p.used && this.reported.has(p.src.file))
      .map((p) => {
        // a breaker, bulkhead or budget on a client no step calls protects nothing: said at that key
        const guard = GUARD_KEYS.find((k) => p.own[k] !== undefined);
        const d = guard
          ? diagAt(
              p.src,
              ['clients', p.name, guard],
              `client '${p.name}' is called by no route, so its ${guard} protects nothing: name the client in a to-http or to-eventhub step (client: ${p.name}), or remove it`,
              true,
            )
          : diagAt(
              p.src,
              ['clients', p.name],
              p.template
                ? `client template '${p.name}' is extended by no client: remove it or extend it in a connector's connector.yaml (${p.name}: { extends: ${p.name} })`
                : `client '${p.name}' is not used by any route: remove it or name it in a to-http or to-eventhub step (client: ${p.name})`,
              true,
            );
        return { ...d, severity: 'warning' as const };
      });
  }
}

/** A profile name (CLIENTS_DOC_SCHEMA propertyNames). */
const NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Profile names that break CLIENTS_DOC_SCHEMA's propertyNames, each at its name. */
function badNames(src: YamlSource, clients: unknown): Diagnostic[] {
  if (!clients || typeof clients !== 'object' || Array.isArray(clients)) return [];
  return Object.keys(clients)
    .filter((n) => !NAME.test(n))
    .map((n) =>
      diagAt(
        src,
        ['clients', n],
        `client name '${n}' must be lower-case letters, digits and '-', starting with a letter or digit`,
        true,
      ),
    );
}

/** For each profile of the file, whether a diagnostic lies within its YAML. */
function profileRanges(src: YamlSource): Map<string, (d: Diagnostic) => boolean> {
  const out = new Map<string, (d: Diagnostic) => boolean>();
  const clients = src.doc.get('clients', true);
  if (!isMap(clients)) return out;
  for (const pair of clients.items) {
    if (!isScalar(pair.key) || !pair.key.range) continue;
    const end = (pair.value as { range?: [number, number, number] } | null)?.range?.[2] ?? pair.key.range[2];
    const from = src.lines.linePos(pair.key.range[0]);
    const to = src.lines.linePos(end);
    const after = (a: { line: number; col: number }, b: { line: number; col: number }) =>
      a.line > b.line || (a.line === b.line && a.col >= b.col);
    out.set(String(pair.key.value), (d) => d.file === src.file && after(d, from) && after(to, d));
  }
  return out;
}

function hint(word: string, names: Iterable<string>): string {
  const s = didYouMean(word, names);
  return s ? `; did you mean '${s}'?` : '';
}

/** Checks what the step would otherwise check late (and at the step's line): expressions, retry statuses, the URL. */
function checkProfile(s: Settings, src: YamlSource, at: YamlPath): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const [h, e] of Object.entries((s.headers ?? {}) as Record<string, string>)) {
    try {
      compileExpression(e);
    } catch (err) {
      if (err instanceof ConfigError) diags.push(diagAt(src, [...at, 'headers', h], err.message));
      else throw err;
    }
  }
  try {
    checkedRetrySettings(s.retry, (m, path) => {
      throw new ConfigError(m, path);
    });
  } catch (err) {
    if (err instanceof ConfigError) diags.push(diagAt(src, [...at, ...err.path], err.message));
    else throw err;
  }
  toGuardSettings(s, (m, path) => diags.push(markValueProblem(diagAt(src, [...at, ...path], m))));
  const base = s['base-url'];
  if (typeof base === 'string' && !base.includes('<unresolved:')) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(base).protocol);
    } catch {
      /* reported below */
    }
    if (!ok)
      diags.push(diagAt(src, [...at, 'base-url'], `base-url must be an absolute http or https URL, got '${base}'`));
  }
  return diags;
}

const PLACEHOLDER_STRING = { type: 'string', pattern: '\\{\\{\\s*[A-Za-z0-9_.-]+\\s*\\}\\}' };

/**
 * Accepts a `{{placeholder}}` string wherever a literal number or boolean is typed (editors see the file
 * unresolved).
 */
function withPlaceholders(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(withPlaceholders);
  if (!s || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) out[k] = k === 'enum' || k === 'pattern' ? v : withPlaceholders(v);
  const o = s as Record<string, unknown>;
  const literal = (t: unknown) => t === 'number' || t === 'integer' || t === 'boolean';
  const typed =
    literal(o.type) ||
    (Array.isArray(o.type) && o.type.some(literal) && !o.type.includes('string')) ||
    Array.isArray(o.anyOf) ||
    Array.isArray(o.enum);
  if (typed && o.type !== 'object' && o.type !== 'array') return { anyOf: [out, PLACEHOLDER_STRING] };
  return out;
}

/** What a document of client templates is checked with: the editor's schema (placeholders stand anywhere). */
export const CLIENT_TEMPLATES_SCHEMA = withPlaceholders(LOAD_SCHEMA) as Record<string, unknown>;

/** The editor schema of clients files (schemas/clients.schema.json). */
export function clientsJsonSchema(): Record<string, unknown> {
  return { ...(withPlaceholders(CLIENTS_DOC_SCHEMA) as Record<string, unknown>), $id: 'urn:engine:clients' };
}
