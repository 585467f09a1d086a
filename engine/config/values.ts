// Values files (`values/**/<name>.values.yaml`): connector properties with the specification's
// defaults. Nested YAML and dotted keys are equivalent. A string value `${env-key}` names an
// environmental key, resolved through EnvKeys only when a loaded route uses the property.

import { readdirSync, existsSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseYamlFile, diagAt, locate, placeOf, type YamlSource, type YamlPath } from '../core/yaml-source.ts';
import { DiagnosticError, suggestion, type Diagnostic } from '../core/diagnostics.ts';
import { EnvKeys, isSecretKey, SIMULATOR_PREFIX, UnknownSimulator } from './env-keys.ts';
import { readEngineSettings, type EngineSettings } from './engine-settings.ts';
import { routePlaceholders, scopeFacts, scopedSetProblem, type ScopeFacts } from './scoped-set.ts';
import { MissingKeys } from './missing-keys.ts';

export interface PropEntry {
  value: unknown;
  /** where it was defined, for diagnostics */
  file: string;
  line: number;
  col: number;
  /** where it came from, most specific last */
  origin: 'values' | 'environment' | 'set';
  /** its YAML path in the values file (origin 'values'): the items of a list are found through it */
  path?: YamlPath;
}

/** thrown by ValuesFile.resolve instead of a diagnostic, for getIfResolved */
const UNRESOLVED = Symbol('unresolved');

const ENV_REF = /\$\{([A-Za-z0-9_.-]+)\}/g;

export interface UsedAt {
  file: string;
  line: number;
  col: number;
}

/** One values file with its overrides applied. */
export class ValuesFile {
  readonly props = new Map<string, PropEntry>();
  /** keys loaded documents' {{placeholders}} asked for, known or not (environment-check.ts) */
  readonly placeholderKeys = new Set<string>();
  /** `tree`: the file as parsed, before any override: what an environment's overrides are checked against */
  constructor(
    readonly name: string,
    readonly file: string,
    private keys: EnvKeys,
    private lenient: boolean,
    readonly tree: unknown = {},
    private source?: YamlSource,
    /** the set's keys that did not resolve, while an engine loads (missing-keys.ts) */
    private missing = new MissingKeys(),
  ) {}

  /** Where a property's value (or item `item` of a list value) was set, for a diagnostic about it. */
  where(key: string, item?: number): UsedAt {
    const p = this.props.get(key);
    if (!p) return { file: this.file, line: 1, col: 1 };
    if (item !== undefined && p.origin === 'values' && p.path && this.source && Array.isArray(p.value)) {
      return { file: p.file, ...locate(this.source, [...p.path, item]) };
    }
    return { file: p.file, line: p.line, col: p.col };
  }

  has(key: string): boolean {
    return this.props.has(key);
  }

  keysList(): string[] {
    return [...this.props.keys()];
  }

  /** The environmental keys a property's value names (`${acme-password}`), unresolved. */
  envKeysOf(key: string): string[] {
    const v = this.props.get(key)?.value;
    return typeof v === 'string' ? [...v.matchAll(ENV_REF)].map((m) => m[1]) : [];
  }

  /**
   * The resolved value of a property. Environmental key references are resolved here; a key that
   * does not resolve reads as `<unresolved:KEY>` in lint and while the set collects its missing
   * keys (an engine's load: each is said once, missing-keys.ts), and otherwise throws a diagnostic
   * naming the key, where it is used and where it is defined.
   */
  get(key: string, usedAt?: UsedAt): unknown {
    return this.resolve(key, usedAt, false);
  }

  /**
   * As `get`, but where `get` would throw a diagnostic this returns undefined, without working out
   * the diagnostic's places: for a caller that only skips what does not resolve (the secrets to mask).
   */
  getIfResolved(key: string): unknown {
    try {
      return this.resolve(key, undefined, true);
    } catch (e) {
      if (e === UNRESOLVED) return undefined;
      throw e;
    }
  }

  private resolve(key: string, usedAt: UsedAt | undefined, quiet: boolean): unknown {
    const p = this.props.get(key);
    if (!p) return undefined;
    if (typeof p.value !== 'string') return p.value;
    // read only for a diagnostic: the place may be worked out then (placeOf)
    const at: UsedAt = {
      file: p.file,
      get line() {
        return p.line;
      },
      get col() {
        return p.col;
      },
    };
    /** `envKey` undefined: the property's own value is the problem (a simulator reference) */
    const miss = (envKey: string | undefined, problem?: string): string => {
      if (this.lenient) return `<unresolved:${envKey ?? key}>`;
      if (this.missing.collecting) {
        this.missing.record(envKey ?? key, key, at, usedAt, problem, envKey !== undefined);
        return `<unresolved:${envKey ?? key}>`;
      }
      if (quiet) throw UNRESOLVED;
      const where = usedAt ?? at;
      throw new DiagnosticError([
        {
          file: where.file,
          line: where.line,
          col: where.col,
          message:
            envKey === undefined
              ? `property '${key}' of ${this.file}:${p.line} ${problem}`
              : `environmental key '${envKey}' ${problem ?? 'is not set'} (property '${key}' of ${this.file}:${p.line}); ${EnvKeys.howToSet(envKey)}`,
        },
      ]);
    };
    if (p.value.startsWith(SIMULATOR_PREFIX)) {
      try {
        return this.keys.simulator(p.value);
      } catch (e) {
        if (!(e instanceof UnknownSimulator)) throw e;
        // a property set to a simulator directly (an environment's `properties`): no key to name
        return miss(undefined, e.message);
      }
    }
    if (!p.value.includes('${')) return p.value;
    const whole = /^\$\{([A-Za-z0-9_.-]+)\}$/.exec(p.value);
    const resolveOne = (envKey: string): string => {
      try {
        const r = this.keys.resolve(envKey);
        return r ? r.value : miss(envKey);
      } catch (e) {
        if (e instanceof UnknownSimulator) return miss(envKey, e.message);
        throw e;
      }
    };
    if (whole) return resolveOne(whole[1]);
    return p.value.replace(ENV_REF, (_, k: string) => resolveOne(k));
  }

  /** `entry` becomes the property's (not copied: its place may be worked out only when asked, placeOf) */
  set(key: string, value: unknown, entry: Omit<PropEntry, 'value'>): void {
    this.props.set(key, Object.assign(entry, { value }));
  }
}

export interface LoadValuesOptions {
  dir: string;
  env?: string;
  set?: Record<string, string>;
  secretsDir?: string;
  processEnv?: NodeJS.ProcessEnv;
  /** lint mode: unresolved environmental keys do not fail */
  lenient?: boolean;
  /** route files or directories: a scoped `--set` of a property their placeholders use is accepted */
  routes?: string[];
}

export interface EnvironmentFile {
  name: string;
  file?: string;
  keys: Record<string, string>;
  /** property overrides per values file name; `'*'` applies to all */
  properties: Record<string, Record<string, unknown>>;
  /**
   * `simulated: true`: its services are simulators an extension starts (EngineExtension.simulation);
   * its `keys` may hold their demo credentials
   */
  simulated: boolean;
  /** engine settings (`engine:` section, defaults filled in) */
  engine: EngineSettings;
  /**
   * `connectors:`, the route folders this environment runs (engine/dsl/connector-selection.ts);
   * undefined: all of them
   */
  connectors?: string[];
  /** the parsed file, for the positions of later checks (environment-check.ts) */
  source?: YamlSource;
}

export class ValuesSet {
  readonly files = new Map<string, ValuesFile>();
  /** the environmental keys an engine's load could not resolve (collected only while it loads) */
  readonly missing = new MissingKeys();
  constructor(
    readonly keys: EnvKeys,
    readonly environment: EnvironmentFile,
    readonly dir: string,
  ) {}

  /** By full name (`v2/payment-v2`) or base name (`payment-v2`). */
  find(name: string): ValuesFile | undefined {
    const n = name.replace(/\.values\.yaml$/, '');
    if (this.files.has(n)) return this.files.get(n);
    const matches = [...this.files.values()].filter((f) => f.name.split('/').pop() === n);
    return matches.length === 1 ? matches[0] : undefined;
  }

  names(): string[] {
    return [...this.files.keys()];
  }
}

/** Flattens nested maps into dotted keys; arrays and scalars are leaves. */
export function flatten(
  value: unknown,
  prefix: YamlPath = [],
  out: [string, unknown, YamlPath][] = [],
): [string, unknown, YamlPath][] {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, [...prefix, k], out);
  } else if (prefix.length) {
    out.push([prefix.join('.'), value, prefix]);
  }
  return out;
}

function walk(dir: string, suffix: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      if (e !== 'environments') walk(p, suffix, out);
    } else if (e.endsWith(suffix)) out.push(p);
  }
  return out;
}

export function loadEnvironment(dir: string, env: string | undefined): EnvironmentFile {
  const empty: EnvironmentFile = {
    name: env ?? 'default',
    keys: {},
    properties: {},
    simulated: false,
    engine: readEngineSettings(undefined).settings,
  };
  if (!env) return empty;
  const file = join(dir, 'environments', `${env}.yaml`);
  if (!existsSync(file)) {
    const avail = walk(join(dir, 'environments'), '.yaml').map((f) =>
      f
        .split(sep)
        .pop()!
        .replace(/\.yaml$/, ''),
    );
    throw new DiagnosticError([
      {
        file,
        line: 1,
        col: 1,
        message: `environment '${env}' has no file; environments: ${avail.join(', ') || 'none'}`,
      },
    ]);
  }
  const src = parseYamlFile(file);
  const v = (src.value ?? {}) as Record<string, unknown>;
  const diags: Diagnostic[] = [];
  for (const k of Object.keys(v)) {
    if (!['keys', 'properties', 'simulated', 'engine', 'connectors'].includes(k))
      diags.push(
        diagAt(src, [k], `unknown key '${k}'; allowed: keys, properties, simulated, engine, connectors`, true),
      );
  }
  const connectors = readConnectors(v.connectors, src, diags);
  const keys = (v.keys ?? {}) as Record<string, unknown>;
  const simulated = v.simulated === true;
  for (const [k, val] of Object.entries(keys)) {
    // a simulated environment's credentials are the simulators' published demo values
    if (isSecretKey(k) && !String(val).startsWith(SIMULATOR_PREFIX) && !simulated) {
      diags.push(
        diagAt(
          src,
          ['keys', k],
          `'${k}' is a secret: put it in the --secrets directory or the process environment, not in an environment file`,
          true,
        ),
      );
    }
  }
  const engine = readEngineSettings(v.engine, src);
  diags.push(...engine.diagnostics);
  if (diags.length) throw new DiagnosticError(diags);
  return {
    name: env,
    file,
    keys: Object.fromEntries(Object.entries(keys).map(([k, val]) => [k, String(val)])),
    properties: (v.properties ?? {}) as Record<string, Record<string, unknown>>,
    simulated,
    engine: engine.settings,
    ...(connectors ? { connectors } : {}),
    source: src,
  };
}

/** `connectors:` is a list of route folder names, each once; absent: every folder runs. */
function readConnectors(raw: unknown, src: YamlSource, diags: Diagnostic[]): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    diags.push(
      diagAt(
        src,
        ['connectors'],
        "'connectors' must be a list of route folder names (connectors: [payments, gateway])",
      ),
    );
    return undefined;
  }
  const names: string[] = [];
  raw.forEach((n, i) => {
    if (typeof n !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(n))
      diags.push(
        diagAt(src, ['connectors', i], `connectors[${i}] must be the name of a route folder, such as payments`),
      );
    else if (names.includes(n)) diags.push(diagAt(src, ['connectors', i], `connector '${n}' is listed twice`));
    else names.push(n);
  });
  return names;
}

/**
 * Splits `--set` pairs into environmental keys and property overrides (`file:prop` scopes one
 * file). An unscoped name that is neither a property of some values file nor an environmental key
 * some values file refers to would change nothing: a typo, refused rather than ignored.
 */
function splitSet(
  set: Record<string, string>,
  knownProps: Set<string>,
  knownKeys: Set<string>,
): { keys: Record<string, string>; props: [string | undefined, string, string][]; unknown: Diagnostic[] } {
  const keys: Record<string, string> = {};
  const props: [string | undefined, string, string][] = [];
  const unknown: Diagnostic[] = [];
  for (const [k, v] of Object.entries(set)) {
    const colon = k.indexOf(':');
    if (colon > 0) props.push([k.slice(0, colon), k.slice(colon + 1), v]);
    else if (knownProps.has(k)) props.push([undefined, k, v]);
    else if (knownKeys.has(k)) keys[k] = v;
    else {
      unknown.push({
        file: '--set',
        line: 1,
        col: 1,
        message:
          `'${k}' is neither a property of a values file nor an environmental key they use${suggestion(k, [...knownProps, ...knownKeys])}. ` +
          `To add a property a values file does not have, scope it to the file: --set <file>:${k}=VALUE`,
      });
    }
  }
  return { keys, props, unknown };
}

/** Coerces `--set` strings the way YAML would (`true`, `12`), so overrides keep their types. */
function coerce(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  // a leading zero marks an identifier (routing number 011000015), which a number would truncate
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(v)) return Number(v);
  return v;
}

export function loadValues(opts: LoadValuesOptions): ValuesSet {
  const environment = loadEnvironment(opts.dir, opts.env);
  const parsed: [string, YamlSource][] = [];
  const diags: Diagnostic[] = [];
  for (const file of walk(opts.dir, '.values.yaml')) {
    try {
      parsed.push([file, parseYamlFile(file)]);
    } catch (e) {
      if (e instanceof DiagnosticError) diags.push(...e.diagnostics);
      else throw e;
    }
  }
  if (diags.length) throw new DiagnosticError(diags);
  const known = new Set<string>();
  const referenced = new Set<string>();
  for (const [, src] of parsed) {
    for (const [k, v] of flatten(src.value)) {
      known.add(k);
      if (typeof v === 'string') for (const m of v.matchAll(ENV_REF)) referenced.add(m[1]);
    }
  }
  for (const over of Object.values(environment.properties)) {
    for (const [, v] of flatten(over))
      if (typeof v === 'string') for (const m of v.matchAll(ENV_REF)) referenced.add(m[1]);
  }
  const { keys: setKeys, props: setProps, unknown } = splitSet(opts.set ?? {}, known, referenced);
  if (unknown.length) throw new DiagnosticError(unknown);
  const envKeys = new EnvKeys({
    set: setKeys,
    env: opts.processEnv ?? process.env,
    secretsDir: opts.secretsDir,
    environmentKeys: environment.keys,
  });
  const set = new ValuesSet(envKeys, environment, opts.dir);
  // the routes' placeholders matter only to a scoped --set: their files are not read otherwise
  const placeholders = setProps.some(([scope]) => scope)
    ? routePlaceholders(opts.routes ?? [])
    : new Map<string, Set<string>>();
  const unknownScoped: Diagnostic[] = [];
  for (const [file, src] of parsed) {
    const name = relative(opts.dir, file)
      .split(sep)
      .join('/')
      .replace(/\.values\.yaml$/, '');
    const vf = new ValuesFile(
      name,
      relative(process.cwd(), file) || file,
      envKeys,
      !!opts.lenient,
      src.value,
      src,
      set.missing,
    );
    // where each property stands is worked out when a diagnostic asks (placeOf)
    for (const [k, v, path] of flatten(src.value))
      vf.set(k, v, Object.assign(placeOf(src, path, vf.file), { origin: 'values' as const, path }));
    const base = name.split('/').pop()!;
    for (const scope of ['*', base, name]) {
      const over = environment.properties[scope];
      if (!over) continue;
      for (const [k, v] of flatten(over)) {
        if (scope === '*' && !vf.has(k)) continue;
        vf.set(k, v, { file: environment.file ?? '', line: 1, col: 1, origin: 'environment' });
      }
    }
    // what the file knows, worked out only when a scoped --set names it (not at every start)
    let facts: ScopeFacts | undefined;
    const factsOf = (): ScopeFacts => {
      if (!facts) {
        facts = scopeFacts(
          new Set(vf.keysList()),
          src.value,
          new Set([...(placeholders.get(name) ?? []), ...(placeholders.get(base) ?? [])]),
        );
      }
      return facts;
    };
    for (const [scope, k, v] of setProps) {
      if (scope && scope !== base && scope !== name) continue;
      if (!scope && !vf.has(k)) continue;
      const problem = scope ? scopedSetProblem(k, factsOf()) : undefined;
      if (problem) {
        unknownScoped.push({
          file: '--set',
          line: 1,
          col: 1,
          message: `'${scope}:${k}' would change nothing in ${vf.file}: ${problem}`,
        });
        continue;
      }
      vf.set(k, coerce(v), { file: '--set', line: 1, col: 1, origin: 'set' });
    }
    set.files.set(name, vf);
  }
  // a scope naming no values file would change nothing: a typo, refused like an unknown name
  const names = [...set.files.keys()];
  const bases = names.map((n) => n.split('/').pop()!);
  const badScopes = setProps
    .filter(([scope]) => scope && !names.includes(scope) && !bases.includes(scope))
    .map(([scope, k]): Diagnostic => ({
      file: '--set',
      line: 1,
      col: 1,
      message: `'${scope}:${k}': there is no values file '${scope}'${suggestion(scope!, [...names, ...bases])}`,
    }));
  if (badScopes.length || unknownScoped.length) throw new DiagnosticError([...badScopes, ...unknownScoped]);
  return set;
}
