// from: cron — runs the route on a schedule (node-cron syntax, seconds optional), e.g. the
// simulated environment's demo traffic. A run still in progress is not started twice. The handle stops the
// schedule (at close, or when a reload changes the route). A run that fails is recorded as a failed
// exchange (store/failed-recorder.ts) with its body; when the store cannot be reached, logged.

import { createRequire } from 'node:module';
import { defineSource } from './source-kind.ts';
import { newCorrelationId } from '../core/correlation-id.ts';
import { createExchange } from '../pipeline/exchange.ts';
import { runRoute } from '../pipeline/route.ts';
import { failedRecorderFor } from '../store/failed-recorder.ts';

/** node-cron, loaded by the first cron route rather than by every engine start. */
const nodeCron = (): typeof import('node-cron').default => createRequire(import.meta.url)('node-cron');

interface CronConfig {
  schedule: string;
  timezone?: string;
  body?: unknown;
  enabled?: boolean | string;
}

export default defineSource<CronConfig>({
  kind: 'cron',
  description: 'Runs the route on a cron schedule with an optional fixed body.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['schedule'],
    properties: {
      schedule: { type: 'string', description: 'cron expression, e.g. "*/30 * * * * *" (every 30 s)' },
      timezone: {
        type: 'string',
        description: 'IANA time zone the schedule is read in, e.g. Europe/Amsterdam (default: the process time zone)',
      },
      body: { description: 'body of each run' },
      enabled: {
        anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }],
        default: true,
        description: 'false: the route loads but never runs (e.g. switched off per environment from values)',
      },
    },
  },
  compile(cfg, ctx) {
    if (!nodeCron().validate(cfg.schedule)) ctx.fail(`invalid cron expression '${cfg.schedule}'`, ['schedule']);
    return cfg;
  },
  start(route, compiled, host) {
    const cfg = compiled as CronConfig;
    if (cfg.enabled === false || cfg.enabled === 'false') return;
    const { logger, metrics } = host.services;
    const recorder = failedRecorderFor(host.services);
    let running = false;
    let current = route;
    const task = nodeCron().schedule(
      cfg.schedule,
      async () => {
        if (running) return;
        running = true;
        const r = current;
        const correlationId = newCorrelationId();
        const firstAt = new Date();
        const ex = createExchange({
          routeId: r.id,
          correlationId,
          body: structuredClone(cfg.body),
          log: logger.child({ route: r.id, correlationId }),
        });
        try {
          const out = await runRoute(r, ex, metrics);
          metrics.requests.inc({ route: r.id, status: String(out.error ? out.error.status : ex.status) });
          if (out.error) {
            await recorder
              .record(r, {
                source: 'cron',
                error: out.error,
                body: cfg.body === undefined ? undefined : JSON.stringify(cfg.body),
                headers: {},
                context: {},
                firstAt,
                correlationId,
                ex,
              })
              .catch((e: unknown) =>
                ex.log.error(
                  { err: e instanceof Error ? e.message : String(e), code: out.error!.code },
                  'the failed cron run could not be recorded as a failed exchange',
                ),
              );
          }
        } finally {
          running = false;
        }
      },
      { timezone: cfg.timezone },
    );
    return {
      stop: () => {
        task.stop();
      },
      retarget: (r) => {
        current = r;
      },
    };
  },
});
