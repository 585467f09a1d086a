// fail: ends the exchange with a platform error when a condition holds (business rules that a
// schema cannot say, e.g. "KYB screening is unsupported").

import { defineStep } from './step-kind.ts';
import { PlatformError, type ErrorKind } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { isPromise } from '../expressions/expressions.ts';
import { truthy } from './truthy.ts';
import { compileSecrets, configuredSecrets, maskText } from '../observability/mask.ts';
import type { Exchange } from '../pipeline/exchange.ts';

interface FailConfig {
  when?: string;
  at?: 'exchange' | 'load';
  kind?: ErrorKind;
  status?: number;
  code?: string;
  title?: string;
  detail?: string;
  field?: string;
}

export default defineStep<FailConfig>({
  kind: 'fail',
  description:
    'Throws a platform error (status, code, title, detail) when the JSONata condition is truthy (always without one).',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      when: { type: 'string', description: 'JSONata condition' },
      at: {
        enum: ['exchange', 'load'],
        default: 'exchange',
        description:
          'load: check once when the route loads (configuration assertions over {{placeholders}}); a truthy condition stops lint and start-up with the detail',
      },
      kind: {
        enum: ['validation', 'unauthorized', 'forbidden', 'not-found', 'vendor', 'internal'],
        default: 'validation',
        description: 'error kind, which on-exception handlers match on and which gives the default status',
      },
      status: {
        type: 'integer',
        minimum: 400,
        maximum: 599,
        description: 'HTTP status of the problem (default: the status of the kind, e.g. 400 for validation)',
      },
      code: {
        type: 'string',
        description: `platform code of the problem (default: ${CODE.validation} for validation, none otherwise)`,
      },
      title: { type: 'string', description: 'title of the problem (default: the title of the kind)' },
      detail: { type: 'string', description: 'JSONata for the detail text' },
      field: { type: 'string', description: 'the field at fault, as a JSON pointer' },
    },
  },
  compile(cfg, ctx) {
    const code =
      ctx.platformCode(cfg.code, ['code']) ??
      ((cfg.kind ?? 'validation') === 'validation' ? CODE.validation : undefined);
    const when = cfg.when ? ctx.expr(cfg.when, ['when']) : undefined;
    const detail = cfg.detail ? ctx.expr(cfg.detail, ['detail']) : undefined;
    if (cfg.at === 'load') {
      if (!when || !detail || !when.fast || !detail.fast)
        ctx.fail(
          'a load-time fail needs `when` and `detail` expressions that do not read the exchange and run synchronously',
        );
      // an environmental key that is not resolved (lint of the project alone, or one missing, which
      // is said once by itself) leaves nothing to check
      const raw = JSON.stringify(cfg);
      if (!raw.includes('<unresolved:') && truthy(when!.evaluate({}))) {
        ctx.fail(String(detail!.evaluate({})), ['when']);
      }
      return () => {};
    }
    // the detail may quote vendor text (vars.vendor...): masked and bounded like any relayed vendor text
    const secrets = compileSecrets(configuredSecrets(ctx.values));
    const raise = (d: unknown): never => {
      const text = d === undefined ? undefined : maskText(String(d), secrets);
      throw new PlatformError({
        kind: cfg.kind ?? 'validation',
        status: cfg.status,
        code,
        title: cfg.title,
        detail: cfg.field && text ? `${cfg.field}: ${text}` : text,
        errors: cfg.field ? [{ field: cfg.field, message: text ?? cfg.title ?? 'is invalid' }] : undefined,
      });
    };
    const withDetail = (ex: Exchange): void | Promise<void> => {
      const d = detail?.evaluate(ex);
      if (isPromise(d)) return d.then(raise);
      raise(d);
    };
    return (ex) => {
      if (!when) return withDetail(ex);
      const v = when.evaluate(ex);
      if (isPromise(v)) return v.then((r) => (truthy(r) ? withDetail(ex) : undefined));
      if (truthy(v)) return withDetail(ex);
    };
  },
  graph: (c, g) => ({
    label: `fail ${g.text(c.at) === 'load' ? 'at load ' : ''}${g.oneLine(g.text(c.when) ?? '')}`.trim(),
  }),
  example: `id: example-fail
values: batch-payments-v0
from:
  http:
    path: /examples/fail
steps:
  # once, when the route loads: a bad configuration stops lint and start-up
  - fail:
      at: load
      when: "$not($abaValid('{{routing.number}}'))"
      detail: "'routing.number of batch-payments-v0 is not a valid ABA routing number'"
  # per exchange: a 400 problem naming the field
  - fail:
      when: "body.currency != 'USD'"
      field: /currency
      detail: "'only USD batches are accepted'"`,
});
