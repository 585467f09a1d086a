// The `properties:` of an environment file are applied by values file name, so a misspelt file
// name or property would change nothing, silently: a production override not applied. Both are
// errors at the environment file's line:col, by the rules `--set <file>:<prop>` follows
// (scoped-set.ts): the file has the property, a loaded document's {{placeholder}} asks for it, or
// it adds an entry to a map-valued property. Runs once the routes loaded, reusing what their
// placeholders asked for; a property the file has is found without flattening the file.

import { flatten, type ValuesFile, type ValuesSet } from './values.ts';
import { scopeFacts, scopedSetProblem, type ScopeFacts } from './scoped-set.ts';
import { diagAt, type YamlPath } from '../core/yaml-source.ts';
import { suggestion, type Diagnostic } from '../core/diagnostics.ts';

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether the file's own tree has `key` as a property (`a.b: 1` and `a: {b: 1}` alike; a map is not one). */
function hasOwn(node: unknown, key: string): boolean {
  if (!isMap(node)) return false;
  for (const [k, v] of Object.entries(node)) {
    if (k === key ? !isMap(v) : key.startsWith(`${k}.`) && hasOwn(v, key.slice(k.length + 1))) return true;
  }
  return false;
}

/** What `scopedSetProblem` judges by, from the file as parsed (not as the environment changed it). */
function factsOf(vf: ValuesFile): ScopeFacts {
  return scopeFacts(new Set(flatten(vf.tree).map(([k]) => k)), vf.tree, vf.placeholderKeys);
}

export function checkEnvironment(values: ValuesSet): Diagnostic[] {
  const src = values.environment.source;
  const props = isMap(src?.value) ? src.value.properties : undefined;
  if (!src || props === undefined || props === null) return [];
  if (!isMap(props))
    return [
      diagAt(src, ['properties'], "'properties' must be a map: a values file name (or '*'), then property: value"),
    ];
  const files = [...values.files.values()];
  // a scope is a full name (`v2/payment-v2`) or a base name, which may name several files
  const byName = new Map<string, ValuesFile[]>();
  for (const vf of files) {
    for (const n of new Set([vf.name, vf.name.split('/').pop()!])) byName.set(n, [...(byName.get(n) ?? []), vf]);
  }
  const facts = new Map<ValuesFile, ScopeFacts>();
  const factsFor = (vf: ValuesFile): ScopeFacts => {
    let f = facts.get(vf);
    if (!f) facts.set(vf, (f = factsOf(vf)));
    return f;
  };
  const diags: Diagnostic[] = [];
  for (const [scope, over] of Object.entries(props)) {
    const at: YamlPath = ['properties', scope];
    const targets = scope === '*' ? files : byName.get(scope);
    if (!targets) {
      const names = [...byName.keys()];
      const hint = suggestion(scope, names) || `; values files: ${files.map((f) => f.name).join(', ')}`;
      diags.push(
        diagAt(src, at, `there is no values file '${scope}': its properties would change nothing${hint}`, true),
      );
      continue;
    }
    if (over === null) continue; // every entry commented out
    if (!isMap(over)) {
      diags.push(diagAt(src, at, `the properties of '${scope}' must be a map of property: value`));
      continue;
    }
    for (const [key, , path] of flatten(over)) {
      const where = [...at, ...path];
      if (scope === '*') {
        // applied only to the files that have it (values.ts), so one must
        if (files.some((vf) => hasOwn(vf.tree, key))) continue;
        const all = files.flatMap((vf) => [...factsFor(vf).keys]);
        diags.push(
          diagAt(
            src,
            where,
            `'${key}' under '*' would change nothing: no values file has it${suggestion(key, all)}`,
            true,
          ),
        );
        continue;
      }
      for (const vf of targets) {
        if (hasOwn(vf.tree, key)) continue;
        const problem = scopedSetProblem(key, factsFor(vf));
        if (problem) diags.push(diagAt(src, where, `'${key}' would change nothing in ${vf.file}: ${problem}`, true));
      }
    }
  }
  return diags;
}
