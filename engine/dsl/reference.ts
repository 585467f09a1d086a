// The DSL reference (docs/routes.md, between markers) rendered from the same schemas that lint
// uses, so the docs cannot drift from the engine.

import { STEP_KINDS } from '../steps/registry.ts';
import { SOURCE_KINDS } from '../sources/registry.ts';

export const BEGIN = '<!-- BEGIN GENERATED REFERENCE (engine schema) -->';
export const END = '<!-- END GENERATED REFERENCE -->';

function typeOf(s: any): string {
  if (!s) return '';
  if (s.enum) return s.enum.map((v: unknown) => `\`${String(v)}\``).join(' \\| ');
  if (s.anyOf) return [...new Set(s.anyOf.map(typeOf))].join(' or ');
  if (s.oneOf) return [...new Set(s.oneOf.map(typeOf))].join(' or ');
  if (s.type === 'array') return `list of ${s.items?.$ref === '#/$defs/step' ? 'steps' : typeOf(s.items) || 'items'}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') return `map of ${typeOf(s.additionalProperties)}`;
  return s.type ?? (s.$ref ? 'step' : 'any');
}

function table(schema: any): string {
  const props = Object.entries<any>(schema.properties ?? {});
  if (!props.length) return '_No configuration._\n';
  const req = new Set<string>(schema.required ?? []);
  const rows = props.map(([k, s]) => {
    const nested = s.type === 'object' && s.properties ? ` (keys: ${Object.keys(s.properties).map((x) => `\`${x}\``).join(', ')})` : '';
    const desc = `${s.description ?? ''}${nested}`.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    return `| \`${k}\`${req.has(k) ? ' (required)' : ''} | ${typeOf(s)} | ${s.default !== undefined ? `\`${JSON.stringify(s.default)}\`` : ''} | ${desc} |`;
  });
  return ['| key | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}

export function renderReference(): string {
  const out: string[] = [BEGIN, '', '### Sources (`from`)', ''];
  for (const k of SOURCE_KINDS.values()) out.push(`#### \`${k.kind}\``, '', k.description, '', table(k.schema));
  out.push('### Steps', '');
  for (const k of STEP_KINDS.values()) out.push(`#### \`${k.kind}\``, '', k.description, '', table(k.schema));
  out.push(END);
  return out.join('\n');
}

/** Replaces the generated part of a document. */
export function updateDoc(text: string): string {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < 0) return `${text.trimEnd()}\n\n${renderReference()}\n`;
  return text.slice(0, a) + renderReference() + text.slice(b + END.length);
}
