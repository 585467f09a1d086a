// log: writes a structured log line with the exchange's correlation id.

import { defineStep } from './step-kind.ts';
import { isPromise } from '../expressions/expressions.ts';
import { compileSecrets, configuredSecrets, maskDeep } from '../observability/mask.ts';
import type { Exchange } from '../pipeline/exchange.ts';

interface LogConfig {
  level?: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: string;
}

export default defineStep<LogConfig>({
  kind: 'log',
  description:
    'Logs a message; `fields` is JSONata giving an object of extra fields (credentials and configured secrets are masked, texts bounded).',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['message'],
    properties: {
      level: { enum: ['debug', 'info', 'warn', 'error'], default: 'info', description: 'log level of the line' },
      message: { type: 'string', description: 'literal text of the log line (not an expression)' },
      fields: {
        type: 'string',
        description: 'JSONata giving an object of extra fields; evaluated only when the level is enabled',
      },
    },
  },
  compile(cfg, ctx) {
    const level = cfg.level ?? 'info';
    const fields = cfg.fields ? ctx.expr(cfg.fields, ['fields']) : undefined;
    // fields may quote vendor answers: the logger masks credential shapes, only the step knows the
    // connector's configured secret values
    const secrets = compileSecrets(configuredSecrets(ctx.values));
    const write = (ex: Exchange, r: unknown): void => {
      ex.log[level]((r === undefined || r === null ? {} : maskDeep(r, secrets)) as object, cfg.message);
    };
    return (ex) => {
      if (!ex.log.isLevelEnabled(level)) return;
      const f = fields?.evaluate(ex);
      if (isPromise(f)) return f.then((r) => write(ex, r));
      write(ex, f);
    };
  },
  example: `id: example-log
from:
  http:
    path: /examples/log
steps:
  - log:
      level: warn
      message: large payment received
      fields: "{ 'amount': body.amount, 'currency': body.currency }"`,
});
