// from: cron — runs the route on a schedule (node-cron syntax, seconds optional), e.g. the
// sandbox's demo traffic. A run still in progress is not started twice.

import cron from 'node-cron';
import { randomUUID } from 'node:crypto';
import { defineSource } from './source-kind.ts';
import { createExchange } from '../runtime/exchange.ts';
import { runRoute } from '../runtime/route.ts';

interface CronConfig { schedule: string; timezone?: string; body?: unknown; enabled?: boolean | string }

export default defineSource<CronConfig>({
  kind: 'cron',
  description: 'Runs the route on a cron schedule with an optional fixed body.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['schedule'],
    properties: {
      schedule: { type: 'string', description: 'cron expression, e.g. "*/30 * * * * *" (every 30 s)' },
      timezone: { type: 'string' },
      body: { description: 'body of each run' },
      enabled: { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }], default: true },
    },
  },
  compile(cfg, ctx) {
    if (!cron.validate(cfg.schedule)) ctx.fail(`invalid cron expression '${cfg.schedule}'`, ['schedule']);
    return cfg;
  },
  start(route, compiled, host) {
    const cfg = compiled as CronConfig;
    if (cfg.enabled === false || cfg.enabled === 'false') return;
    const { logger, metrics } = host.services;
    let running = false;
    const task = cron.schedule(cfg.schedule, async () => {
      if (running) return;
      running = true;
      const correlationId = randomUUID();
      const ex = createExchange({ routeId: route.id, correlationId, body: structuredClone(cfg.body), log: logger.child({ route: route.id, correlationId }) });
      try {
        const out = await runRoute(route, ex, metrics);
        metrics.requests.inc({ route: route.id, status: String(out.error ? out.error.status : ex.status) });
      } finally {
        running = false;
      }
    }, { timezone: cfg.timezone });
    host.services.onClose(() => { task.stop(); });
  },
});
