// ajv's errors as the engine reports them: one FieldError per violation, the field as a JSON
// pointer, a message for people. The validate step and the output check (pipeline/output-check.ts) say them.

import type { ErrorObject } from 'ajv';
import type { FieldError } from '../core/errors.ts';

const FORMAT_MESSAGES: Record<string, string> = {
  iban: 'is not a valid IBAN',
  bic: 'is not a valid BIC',
  iso4217: 'is not an ISO 4217 currency code',
  'aba-routing': 'is not a valid ABA routing number (check digit)',
  'decimal-amount': 'must be a positive decimal amount as a string, e.g. "100.25"',
  'not-past-date': 'must be today or later (YYYY-MM-DD)',
  'nacha-alphanumeric': 'must contain only NACHA alphanumeric characters (printable ASCII, no controls or accents)',
  date: 'must be a date (YYYY-MM-DD)',
  'date-time': 'must be a date-time (RFC 3339)',
  email: 'must be an e-mail address',
  uuid: 'must be a UUID',
};

/**
 * The `errorMessage` of the schema holding the keyword an error names (its schema path less the
 * keyword), looked up in the root schema: ajv gives an error its schema only in verbose mode, which
 * would also copy the failing value into every error object.
 */
function authoredMessage(root: unknown, schemaPath: string): string | undefined {
  if (!root || typeof root !== 'object' || !schemaPath.startsWith('#/')) return undefined;
  const parts = schemaPath.slice(2).split('/').slice(0, -1);
  let at: unknown = root;
  for (const raw of parts) {
    if (!at || typeof at !== 'object') return undefined;
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    at = Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
  }
  const m = at && typeof at === 'object' ? (at as { errorMessage?: unknown }).errorMessage : undefined;
  return typeof m === 'string' ? m : undefined;
}

/**
 * One FieldError per ajv error, with the field as a JSON pointer and a message for people: the
 * `errorMessage` of the field's schema in `schema` (the validator's root schema) when it has one.
 */
export function fieldErrors(errors: ErrorObject[] | null | undefined, prefix = '', schema?: unknown): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    // oneOf/anyOf summaries repeat what their branches said
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'if') continue;
    let field = prefix + e.instancePath;
    let message = e.message ?? 'is invalid';
    switch (e.keyword) {
      case 'required':
        field += `/${(e.params as any).missingProperty}`;
        message = 'is required';
        break;
      case 'additionalProperties':
        field += `/${(e.params as any).additionalProperty}`;
        message = 'is not allowed';
        break;
      case 'unevaluatedProperties':
        field += `/${(e.params as any).unevaluatedProperty}`;
        message = 'is not allowed';
        break;
      case 'enum':
        message = `must be one of ${(e.params as any).allowedValues.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
        break;
      case 'const':
        message = `must be ${JSON.stringify((e.params as any).allowedValue)}`;
        break;
      case 'format':
        message = FORMAT_MESSAGES[(e.params as any).format] ?? `must match format "${(e.params as any).format}"`;
        break;
      case 'type':
        message = `must be of type ${(e.params as any).type}`;
        break;
      default:
        break;
    }
    message = authoredMessage(schema, e.schemaPath) ?? message;
    const key = `${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: field || '/', message });
  }
  return out;
}
