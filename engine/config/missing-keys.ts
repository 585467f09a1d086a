// The environmental keys a load asked for and could not resolve, each said once: at the values file
// line that names it, with where it is used and how to set it. Without it every placeholder of the
// key was a diagnostic of its own, and so was every client, step and route the missing value broke
// (a production start without keys printed 42 diagnostics for 15 keys).

import { existsSync } from 'node:fs';
import type { Diagnostic } from '../core/diagnostics.ts';
import { EnvKeys } from './env-keys.ts';

export interface KeyPlace {
  file: string;
  line: number;
  col: number;
}

interface Miss {
  /** why it does not resolve (default: it is not set) */
  problem?: string;
  /** false: a property's own value (a `simulator:NAME` an environment sets), no key to set */
  isKey: boolean;
  /** the properties naming it, each where its value is written */
  properties: { name: string; at: KeyPlace }[];
  /** the places that use those properties (route placeholders, templates) */
  uses: KeyPlace[];
}

const place = (p: KeyPlace) => `${p.file}:${p.line}:${p.col}`;

export class MissingKeys {
  private misses = new Map<string, Miss>();
  /**
   * While on (an engine's load), a key that does not resolve is recorded and its properties read as
   * `<unresolved:KEY>` (as lint reads them), so that nothing built on the value adds a diagnostic;
   * while off, `ValuesFile.get` throws a diagnostic for it.
   */
  collecting = false;

  record(key: string, property: string, at: KeyPlace, usedAt?: KeyPlace, problem?: string, isKey = true): void {
    const id = isKey ? key : `property:${property}`;
    let m = this.misses.get(id);
    if (!m) this.misses.set(id, (m = { problem, isKey, properties: [], uses: [] }));
    if (!m.properties.some((p) => p.name === property && place(p.at) === place(at)))
      m.properties.push({ name: property, at });
    if (usedAt && !m.uses.some((u) => place(u) === place(usedAt))) m.uses.push(usedAt);
  }

  /**
   * One diagnostic per key, at the first values file line naming it, in the order they were met.
   * `secretsDir`: the --secrets directory, named in each when it does not exist (an image runs with
   * one that only a deployment mounts: not a problem while no key is missing)
   */
  diagnostics(secretsDir?: string): Diagnostic[] {
    const gone = secretsDir && !existsSync(secretsDir) ? ` (the --secrets directory ${secretsDir} does not exist)` : '';
    return [...this.misses].map(([id, m]) => {
      const [first, ...more] = m.properties;
      const used = m.uses.length
        ? `, used at ${place(m.uses[0])}${m.uses.length > 1 ? ` and ${m.uses.length - 1} more place(s)` : ''}`
        : '';
      const also = more.length ? `; also named by ${more.map((p) => `'${p.name}' at ${place(p.at)}`).join(', ')}` : '';
      if (!m.isKey)
        return {
          ...first.at,
          message: `property '${first.name}' ${m.problem}${used.replace(/^, /, ' (')}${used ? ')' : ''}`,
        };
      return {
        ...first.at,
        message: `environmental key '${id}' ${m.problem ?? 'is not set'} (property '${first.name}'${used}${also}); ${EnvKeys.howToSet(id)}${gone}`,
      };
    });
  }
}
