// `{{property}}` placeholders in route files, resolved from the route's values file at load.
// A string that is exactly one placeholder takes the property's typed value (number, boolean,
// list); inside a longer string the value is interpolated as text.

import type { ValuesFile } from './values.ts';
import { isSecretKey } from './env-keys.ts';
import { lazyDiagAt, locate, placeOf, type YamlSource, type YamlPath } from '../core/yaml-source.ts';
import { DiagnosticError, isValueProblem, suggestion, textPosition, type Diagnostic } from '../core/diagnostics.ts';

/** a `{{key}}` anywhere (global: for replace and matchAll), and a string that is exactly one */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
export const WHOLE = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

export interface PlaceholderUse {
  key: string;
  path: YamlPath;
}

/**
 * Returns a copy of `value` with placeholders resolved, and every problem as a diagnostic; an
 * unresolvable placeholder is left as written so the rest of the file can still be checked.
 */
export function resolvePlaceholders(
  value: unknown,
  values: ValuesFile | undefined,
  src: YamlSource,
  uses: PlaceholderUse[] = [],
  valuesGoTo = 'the route',
): { value: unknown; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const FAILED = Symbol('failed');
  const visit = (v: unknown, path: YamlPath): unknown => {
    if (typeof v === 'string') return resolveString(v, path);
    if (Array.isArray(v)) return v.map((x, i) => visit(x, [...path, i]));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = visit(x, [...path, k]);
      return out;
    }
    return v;
  };
  const lookup = (key: string, path: YamlPath): unknown => {
    uses.push({ key, path });
    values?.placeholderKeys.add(key);
    if (!values) {
      diags.push(
        lazyDiagAt(src, path, `placeholder '{{${key}}}' needs a values file: add 'values: <name>' to ${valuesGoTo}`),
      );
      return FAILED;
    }
    if (!values.has(key)) {
      diags.push(
        lazyDiagAt(
          src,
          path,
          `unknown property '${key}' in values '${values.name}'${suggestion(key, values.keysList())}`,
        ),
      );
      return FAILED;
    }
    const at = placeOf(src, path);
    try {
      return values.get(key, at);
    } catch (e) {
      if (e instanceof DiagnosticError) {
        diags.push(...e.diagnostics);
        return FAILED;
      }
      throw e;
    }
  };
  const resolveString = (s: string, path: YamlPath): unknown => {
    if (!s.includes('{{')) return s;
    const whole = WHOLE.exec(s);
    if (whole) {
      const r = lookup(whole[1], path);
      return r === FAILED ? s : r;
    }
    return s.replace(PLACEHOLDER, (all, key: string) => {
      const r = lookup(key, path);
      if (r === FAILED) return all;
      return r === undefined || r === null ? '' : Array.isArray(r) ? r.join(',') : String(r);
    });
  };
  return { value: visit(value, []), diagnostics: diags };
}

/**
 * Placeholders in the text of a project file a step names (a .jsonata file): each is interpolated
 * as text, as inside a longer string of a route. Every problem is a diagnostic at its line and
 * column in `file`; an unresolved placeholder is left as written.
 */
export function resolveTextPlaceholders(
  text: string,
  values: ValuesFile | undefined,
  file: string,
  onKey: (key: string) => void = () => {},
): { text: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  if (!text.includes('{{')) return { text, diagnostics };
  const out = text.replace(PLACEHOLDER, (all, key: string, offset: number) => {
    const at = { file, ...textPosition(text, offset) };
    onKey(key);
    values?.placeholderKeys.add(key);
    if (!values) {
      diagnostics.push({
        ...at,
        message: `placeholder '{{${key}}}' needs a values file: the route that names this file has none`,
      });
      return all;
    }
    if (!values.has(key)) {
      diagnostics.push({
        ...at,
        message: `unknown property '${key}' in values '${values.name}'${suggestion(key, values.keysList())}`,
      });
      return all;
    }
    try {
      const r = values.get(key, at);
      return r === undefined || r === null ? '' : Array.isArray(r) ? r.join(',') : String(r);
    } catch (e) {
      if (e instanceof DiagnosticError) {
        diagnostics.push(...e.diagnostics);
        return all;
      }
      throw e;
    }
  });
  return { text: out, diagnostics };
}

/**
 * Where each problem of a document with placeholders goes, so it points where the fix goes:
 * a check that failed where a placeholder did not resolve is a follow-on of that problem and goes;
 * a check of a value (isValueProblem) a placeholder brought in is said at the values file line that
 * sets it, with the value it got (unless the value came from an environmental key: it may be a
 * secret), naming the placeholder. One diagnostic per place.
 */
export function placeDiagnostics(
  resolution: Diagnostic[],
  checks: Diagnostic[],
  uses: PlaceholderUse[],
  src: YamlSource,
  values: ValuesFile | undefined,
): Diagnostic[] {
  const place = (d: { file: string; line: number; col: number }) => `${d.file}:${d.line}:${d.col}`;
  const failed = new Set(resolution.map(place));
  const out = new Map<string, Diagnostic>();
  for (const d of resolution) if (!out.has(place(d))) out.set(place(d), d);
  for (const d of checks) {
    if (failed.has(place(d))) continue;
    const use = uses.find((u) => {
      const at = locate(src, u.path);
      return d.file === src.file && at.line === d.line && at.col === d.col;
    });
    const moved = use && isValueProblem(d) && values?.has(use.key) ? atValue(d, use.key, values) : d;
    // several problems may share a place (a misspelt key where a required one is missing): each is said
    const key = `${place(moved)} ${moved.message}`;
    if (!out.has(key)) out.set(key, moved);
  }
  return [...out.values()];
}

/** `d`, a check of the value of property `key`, said at the line of the values file that sets it. */
function atValue(d: Diagnostic, key: string, values: ValuesFile): Diagnostic {
  const at = values.where(key);
  const raw = values.props.get(key)?.value;
  const envKeys = values.envKeysOf(key);
  const got = envKeys.length
    ? `, got the value of environmental key '${envKeys.join("', '")}'`
    : isSecretKey(key)
      ? ''
      : `, got ${typeof raw === 'string' ? `'${raw}'` : JSON.stringify(raw)}`;
  // the message names the setting by its key in the document; the property is what is edited
  return {
    file: at.file,
    line: at.line,
    col: at.col,
    severity: d.severity,
    message: `property '${key}': ${d.message}${got} (used by {{${key}}} at ${d.file}:${d.line}:${d.col}${d.path ? `, ${d.path}` : ''})`,
  };
}
