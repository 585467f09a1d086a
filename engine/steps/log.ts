// log: writes a structured log line with the exchange's correlation id.

import { defineStep } from './step-kind.ts';
import { isPromise } from '../runtime/expressions.ts';

interface LogConfig { level?: 'debug' | 'info' | 'warn' | 'error'; message: string; fields?: string }

export default defineStep<LogConfig>({
  kind: 'log',
  description: 'Logs a message; `fields` is JSONata giving an object of extra fields (secrets are masked by the logger).',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['message'],
    properties: {
      level: { enum: ['debug', 'info', 'warn', 'error'], default: 'info' },
      message: { type: 'string' },
      fields: { type: 'string', description: 'JSONata' },
    },
  },
  compile(cfg, ctx) {
    const level = cfg.level ?? 'info';
    const fields = cfg.fields ? ctx.expr(cfg.fields, ['fields']) : undefined;
    return (ex) => {
      if (!ex.log.isLevelEnabled(level)) return;
      const f = fields?.evaluate(ex);
      if (isPromise(f)) return f.then((r) => { ex.log[level]((r ?? {}) as object, cfg.message); });
      ex.log[level]((f ?? {}) as object, cfg.message);
    };
  },
});
