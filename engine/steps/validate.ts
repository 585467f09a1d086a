// validate: checks a part of the exchange against a JSON Schema (2020-12) and JSONata rules
// before anything reaches a vendor. Every violation is reported at once, each naming its field.
// With a schema, the engine's text rule also holds for every string (engine/schemas/schemas.ts).

import { defineStep } from './step-kind.ts';
import { PlatformError, type FieldError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { isPromise, type Expression } from '../expressions/expressions.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { clock, endOfStep, nextSlice, SLICE_MS, sliceStart as stretchStart } from '../pipeline/slices.ts';
import { fieldErrors } from '../schemas/field-errors.ts';

interface Rule {
  assert?: string;
  errors?: string;
  file?: string;
  field?: string;
  message?: string;
}

/** the targets whose keys are request parameters (OpenAPI) */
type ParamTarget = 'query' | 'params' | 'headers';
const PARAM_TARGETS: unknown[] = ['query', 'params', 'headers'] satisfies ParamTarget[];

interface ValidateConfig {
  schema?: string | Record<string, unknown>;
  target?: 'body' | 'query' | 'params' | 'headers';
  rules?: Rule[];
  code?: string;
  status?: number;
}

/** Adds the text rule's errors for fields the schema did not already name. */
function withTextErrors(errors: FieldError[], text: FieldError[] | undefined): FieldError[] {
  if (!text) return errors;
  const named = new Set(errors.map((e) => e.field));
  return [...errors, ...text.filter((e) => !named.has(e.field))];
}

function describe(errors: FieldError[]): string {
  const first = errors
    .slice(0, 5)
    .map((e) => `${e.field}${e.index !== undefined ? ` (entry ${e.index})` : ''} ${e.message}`);
  return first.join('; ') + (errors.length > 5 ? `; and ${errors.length - 5} more` : '');
}

interface CompiledRule {
  assert?: Expression;
  errors?: Expression;
  field: string;
  message: string;
}

/** Adds what one rule's result says is wrong; the list is made only once something is. */
function collectRule(rule: CompiledRule, v: unknown, errors: FieldError[] | undefined): FieldError[] | undefined {
  if (rule.assert) {
    if (!v) (errors ??= []).push({ field: rule.field, message: rule.message });
  } else if (v !== undefined && v !== null) {
    for (const e of (Array.isArray(v) ? v : [v]) as any[]) {
      if (e && typeof e === 'object')
        (errors ??= []).push({
          field: String(e.field ?? rule.field),
          message: String(e.message ?? rule.message),
          ...(e.index !== undefined ? { index: Number(e.index) } : {}),
        });
    }
  }
  return errors;
}

export default defineStep<ValidateConfig>({
  kind: 'validate',
  description:
    'Validates the body (or query, params, headers) against a JSON Schema and JSONata rules; a failure is a 400 problem naming each field.',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      schema: {
        description: 'JSON Schema file (beside the route first, then from the project root) or an inline schema',
        anyOf: [{ type: 'string' }, { type: 'object' }],
      },
      target: {
        enum: ['body', 'query', 'params', 'headers'],
        default: 'body',
        description: 'the part of the exchange checked',
      },
      rules: {
        type: 'array',
        description: 'checks run after the schema passed, in order; every failing rule adds to errors[]',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            assert: { type: 'string', description: 'JSONata; falsy means the rule failed (needs field and message)' },
            errors: {
              type: 'string',
              description:
                'JSONata returning a list of {field, message, index?} (none: the rule passed); field and message are the defaults of each entry',
            },
            file: {
              type: 'string',
              description:
                'an `errors` rule kept in a .jsonata file (transforms/...): long business rules read, and can be tried with `engine eval -f`, on their own',
            },
            field: {
              type: 'string',
              description: 'the field at fault, as named in errors[].field (e.g. debtorAccount.iban)',
            },
            message: { type: 'string', description: 'what is wrong with it, e.g. "must be a valid IBAN"' },
          },
        },
      },
      code: { type: 'string', description: 'platform code of the problem', default: CODE.validation },
      status: { type: 'integer', minimum: 400, maximum: 499, default: 400, description: 'HTTP status of the problem' },
    },
  },
  compile(cfg, ctx) {
    const target = cfg.target ?? 'body';
    const compiled = cfg.schema !== undefined ? ctx.schema(cfg.schema, ['schema']) : undefined;
    const rules: CompiledRule[] = (cfg.rules ?? []).map((r, i) => {
      const kinds = (['assert', 'errors', 'file'] as const).filter((k) => r[k] !== undefined);
      if (kinds.length === 0) ctx.fail('a rule needs `assert`, `errors` or `file`', ['rules', i]);
      if (kinds.length > 1)
        ctx.fail(
          `a rule is one of \`assert\`, \`errors\` or \`file\`, not ${kinds.map((k) => `\`${k}\``).join(' and ')}: make them two rules`,
          ['rules', i, kinds[1]],
        );
      if (r.assert && (!r.field || !r.message)) ctx.fail('an `assert` rule needs `field` and `message`', ['rules', i]);
      return {
        assert: r.assert !== undefined ? ctx.expr(r.assert, ['rules', i, 'assert']) : undefined,
        errors:
          r.errors !== undefined
            ? ctx.expr(r.errors, ['rules', i, 'errors'])
            : r.file !== undefined
              ? ctx.exprFile(
                  r.file,
                  ['rules', i, 'file'],
                  "a rule's file is a .jsonata file; an inline rule goes in `errors` or `assert`",
                )
              : undefined,
        field: r.field ?? '',
        message: r.message ?? '',
      };
    });
    const code = ctx.platformCode(cfg.code, ['code']) ?? CODE.validation;
    const status = cfg.status ?? 400;
    const prefix = target === 'body' ? '' : `/${target}`;
    const fail = (errors: FieldError[]): never => {
      throw new PlatformError({ kind: 'validation', status, code, detail: describe(errors), errors });
    };

    /**
     * The rules in order; past SLICE_MS of the exchange's stretch (from `sliceStart`) the loop turns before the next.
     * Errors are reported in the order of the rules, whichever evaluator (synchronous or not) ran each.
     * The usual case (every rule synchronous, all in one slice) runs here without any closure;
     * a slice boundary or the first asynchronous result goes on in rulesFrom().
     */
    const runRules = (ex: Exchange, sliceStart: number): void | Promise<void> => {
      let errors: FieldError[] | undefined;
      for (let i = 0; i < rules.length; i++) {
        if (i > 0 && clock() - sliceStart > SLICE_MS) {
          const held = errors;
          return nextSlice().then(() => rulesFrom(ex, clock(), i, held));
        }
        const v = (rules[i].assert ?? rules[i].errors)!.evaluate(ex);
        if (isPromise(v)) return rulesFrom(ex, sliceStart, i, errors, v);
        errors = collectRule(rules[i], v, errors);
      }
      if (errors) fail(errors);
      return endOfStep(ex, sliceStart);
    };

    /** runRules from rule `first` on, with the errors so far and, when evaluated already, its pending value. */
    const rulesFrom = (
      ex: Exchange,
      sliceStart: number,
      first: number,
      errorsSoFar: FieldError[] | undefined,
      firstValue?: Promise<unknown>,
    ): void | Promise<void> => {
      let errors = errorsSoFar;
      // from the first rule JSONata evaluates asynchronously on, every result is kept by rule
      // until they all settled, then collected in order
      let firstLater = -1;
      let results: unknown[] | undefined;
      let pending: Promise<void>[] | undefined;
      const from = (start: number): void | Promise<void> => {
        for (let i = start; i < rules.length; i++) {
          if (i > start && clock() - sliceStart > SLICE_MS) {
            return nextSlice().then(() => {
              sliceStart = clock();
              return from(i);
            });
          }
          const v = i === first && firstValue ? firstValue : (rules[i].assert ?? rules[i].errors)!.evaluate(ex);
          if (isPromise(v) && firstLater < 0) {
            firstLater = i;
            results = new Array(rules.length);
            pending = [];
          }
          if (firstLater < 0) errors = collectRule(rules[i], v, errors);
          else if (isPromise(v)) {
            const slots = results!;
            pending!.push(
              v.then((r) => {
                slots[i] = r;
              }),
            );
          } else results![i] = v;
        }
        if (firstLater >= 0) {
          return Promise.all(pending!).then(() => {
            for (let i = firstLater; i < rules.length; i++) errors = collectRule(rules[i], results![i], errors);
            if (errors) fail(errors);
          });
        }
        if (errors) fail(errors);
        return endOfStep(ex, sliceStart);
      };
      return from(first);
    };

    const schemas = ctx.services.schemas;
    // header values cannot carry CR/LF/NUL (the HTTP parser refuses them) and may carry TAB and
    // Latin-1 bytes unrelated to the route, so the text rule checks the body, query and params
    const textRule = compiled !== undefined && target !== 'headers';

    return (ex) => {
      const started = stretchStart(ex);
      if (compiled) {
        const data = (ex as any)[target];
        if (target === 'body' && data === undefined) fail([{ field: '/', message: 'a JSON body is required' }]);
        const valid = compiled.validate(data);
        const text = textRule ? schemas.unsafeTextErrors(data, compiled.schema, prefix) : undefined;
        if (!valid || text)
          fail(withTextErrors(valid ? [] : fieldErrors(compiled.validate.errors, prefix, compiled.schema), text));
      }
      if (rules.length) return runRules(ex, started);
      return endOfStep(ex, started);
    };
  },
  inputSchema(cfg, ctx) {
    if (cfg.schema === undefined || (cfg.target ?? 'body') !== 'body') return undefined;
    const s = ctx.schema(cfg.schema, ['schema']);
    return { schema: s.schema, file: s.file };
  },
  graph: (c, g) => ({ label: `validate ${g.oneLine(g.text(c.schema)?.split('/').pop() ?? (c.rules ? 'rules' : ''))}` }),
  request(config, facts) {
    // parameters a schema of the query, headers or params describes; those a rule's field names
    const v = config as Record<string, any> | null;
    if (v && typeof v === 'object' && PARAM_TARGETS.includes(v.target) && v.schema && typeof v.schema === 'object') {
      const required = new Set<string>(Array.isArray(v.schema.required) ? v.schema.required : []);
      for (const [name, schema] of Object.entries<Record<string, unknown>>(v.schema.properties ?? {})) {
        const p = facts.param(v.target, name);
        // the file is read as written: a schema with a {{placeholder}} would show it unresolved
        if (!JSON.stringify(schema).includes('{{')) p.schema = schema;
        if (required.has(name)) p.required = true;
      }
    }
    for (const rule of (v && Array.isArray(v.rules) ? v.rules : []) as Record<string, unknown>[]) {
      const m =
        typeof rule.field === 'string' ? /^\/(query|params|headers)\/([A-Za-z0-9_.-]+)$/.exec(rule.field) : null;
      if (m && typeof rule.message === 'string') facts.param(m[1] as ParamTarget, m[2]).description ??= rule.message;
    }
  },
  example: `id: example-validate
from:
  http:
    path: /examples/validate
steps:
  - validate:
      schema:
        type: object
        required: [amount, currency, debtorIban]
        properties:
          amount: { type: string, format: decimal-amount }
          currency: { type: string, format: iso4217 }
          debtorIban: { type: string }
      rules:
        - assert: "$ibanValid(body.debtorIban)"
          field: debtorIban
          message: must be a valid IBAN
        - assert: "$amountValid(body.amount, body.currency)"
          field: amount
          message: has more decimals than the currency allows`,
});
