// Route templates: a route file with `instances:` is compiled once per instance, that instance's
// parameters replacing their `{{name}}` placeholders before the values' properties do (as Camel's
// templated routes). Two routes that differ only in a name, a path and a vendor operation (the
// ACH credit and debit batches) are then said once.
//
//   id: submit-{{direction}}-batch
//   instances:
//     - { direction: credit }
//     - { direction: debit }
//
// A parameter may build a property's name: "{{acme.api_path.submit_{{direction}}_batch}}"
// reads acme.api_path.submit_credit_batch for the credit instance.

import { diagAt, withValue, type YamlSource } from '../core/yaml-source.ts';
import type { Diagnostic } from '../core/diagnostics.ts';
import { PLACEHOLDER as ANY, WHOLE } from '../config/placeholders.ts';

const NAME = /^[A-Za-z0-9_.-]+$/;

export const INSTANCES_SCHEMA = {
  type: 'array',
  minItems: 1,
  description:
    'makes the file a route template: one route per item, whose parameters replace their {{name}} placeholders before values do (the id must name one, so that each route has its own)',
  items: {
    type: 'object',
    minProperties: 1,
    propertyNames: { pattern: NAME.source },
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  },
};

export type Params = Record<string, string | number | boolean>;

/** One route document of a file: the file itself, or an instance of it with its parameters. */
export interface RouteDocument {
  src: YamlSource;
  params?: Params;
}

/** The route documents a file stands for: itself, or one per instance (without `instances`). */
export function routeInstances(src: YamlSource): { sources: RouteDocument[]; diagnostics: Diagnostic[] } {
  const raw = src.value as Record<string, unknown>;
  if (!('instances' in raw)) return { sources: [{ src }], diagnostics: [] };
  const list = raw.instances;
  const diags: Diagnostic[] = [];
  if (!Array.isArray(list) || list.length === 0) {
    return {
      sources: [],
      diagnostics: [
        diagAt(
          src,
          ['instances'],
          'instances is a list of parameter mappings, one per route (- { direction: credit })',
        ),
      ],
    };
  }
  const { instances: _, ...template } = raw;
  const names = list[0] && typeof list[0] === 'object' && !Array.isArray(list[0]) ? Object.keys(list[0]) : [];
  list.forEach((item, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length === 0) {
      diags.push(diagAt(src, ['instances', i], 'an instance is a mapping of parameters (name: value)'));
      return;
    }
    for (const [k, v] of Object.entries(item)) {
      if (!NAME.test(k))
        diags.push(
          diagAt(
            src,
            ['instances', i, k],
            `parameter name '${k}' may hold letters, digits, '_', '.' and '-' (as a {{placeholder}})`,
            true,
          ),
        );
      else if (v === null || typeof v === 'object')
        diags.push(diagAt(src, ['instances', i, k], `parameter '${k}' is a text, number or boolean`));
    }
    const keys = Object.keys(item);
    const missing = names.filter((n) => !keys.includes(n));
    const extra = keys.filter((n) => !names.includes(n));
    if (i > 0 && (missing.length || extra.length)) {
      diags.push(
        diagAt(
          src,
          ['instances', i],
          `every instance gives the same parameters as the first (${names.join(', ')})${missing.length ? `; missing: ${missing.join(', ')}` : ''}${extra.length ? `; not in the first: ${extra.join(', ')}` : ''}`,
        ),
      );
    }
  });
  const text = JSON.stringify(template);
  for (const n of names) {
    if (!new RegExp(`\\{\\{\\s*${n.replace(/[.-]/g, '\\$&')}\\s*\\}\\}`).test(text))
      diags.push(
        diagAt(
          src,
          ['instances', 0, n],
          `parameter '${n}' is used nowhere in the route: name it as {{${n}}} or remove it`,
          true,
        ),
      );
  }
  const idKeys = typeof raw.id === 'string' ? [...raw.id.matchAll(ANY)].map((m) => m[1]) : [];
  if (typeof raw.id === 'string' && !idKeys.some((k) => names.includes(k))) {
    diags.push(
      diagAt(
        src,
        ['id'],
        `a route with instances names a parameter in its id (e.g. ${raw.id}-{{${names[0] ?? 'name'}}}), so that each instance is a route of its own`,
      ),
    );
  }
  if (diags.length) return { sources: [], diagnostics: diags };
  return {
    sources: (list as Params[]).map((params) => ({ src: withValue(src, applyParams(template, params)), params })),
    diagnostics: [],
  };
}

/** `value` with the parameters' placeholders replaced: typed where a string is exactly one, else as text. */
export function applyParams(value: unknown, params: Params): unknown {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return value;
    const whole = WHOLE.exec(value);
    if (whole && whole[1] in params) return params[whole[1]];
    return value.replace(ANY, (all, key: string) => (key in params ? String(params[key]) : all));
  }
  if (Array.isArray(value)) return value.map((v) => applyParams(v, params));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, applyParams(v, params)]));
  return value;
}
