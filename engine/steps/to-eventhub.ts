// to-eventhub: publishes a CloudEvents 1.0 event in structured mode to the event hub producer
// (`asb.producer.apiUri`). The step returns only once the event hub accepted the event, so
// sources acknowledge their input after that and nothing is lost. The event id is stable for a
// redelivered input (an `id` expression over the message or webhook id), so consumers can
// deduplicate; publishing is therefore safe to retry. A step usually names an event hub profile
// (`client:`, found by the loader, engine/dsl/clients.ts, and merged in by `withClient` below)
// giving url, timeouts, retry and the event's source and version.
//
// Outbox mode (`outbox:`, default on for routes served over HTTP, i.e. webhooks): the event is
// built as above, then written to the durable outbox (engine/outbox/) with the webhook's dedupe
// key instead of being sent; the webhook is answered once the row is committed and the engine's
// publisher sends it. A row of the same route, dedupe key and event id waiting already makes it a duplicate.

import { randomUUID } from 'node:crypto';
import { defineStep } from './step-kind.ts';
import { PlatformError } from '../core/errors.ts';
import { isPromise, type Expression } from '../expressions/expressions.ts';
import { httpCall, DEFAULT_TIMEOUTS } from '../outbound/http-client.ts';
import { retryPolicy } from '../outbound/retry.ts';
import { stableId } from '../core/functions.ts';
import {
  retrySchema,
  timeoutsSchema,
  OUTBOX_SCHEMA,
  checkedRetrySettings,
  toTimeouts,
  type RetryConfig,
  type TimeoutsConfig,
} from './shared-schemas.ts';
import { compileTarget, TARGET_PATTERN } from '../pipeline/targets.ts';
import {
  describeStep,
  startCallSpan,
  withTraceHeaders,
  traceContextOf,
  endSpan,
  SpanKind,
} from '../pipeline/tracing.ts';
import { eventPublished } from '../pipeline/tracing-detail.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { deadlineError } from '../pipeline/deadline.ts';
import { ConfigError } from '../core/diagnostics.ts';
import { clientReference, joinUrl, mergeSettings, HTTP_ONLY } from './client-profile.ts';
import { withGuard, CLIENT_GUARD, type GuardRef } from './guard-schemas.ts';
import { outboxFor } from '../outbox/outbox-for.ts';
import { webhookInput } from '../outbox/webhook-input.ts';

interface ToEventHubConfig {
  url?: string;
  client?: string;
  path?: string;
  type: string;
  source?: string;
  version?: string;
  topic?: string;
  id?: string;
  subject?: string;
  data?: string;
  timeouts?: TimeoutsConfig;
  retry?: RetryConfig;
  into?: string;
  outbox?: boolean | 'true' | 'false';
}

export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time: string;
  datacontenttype: 'application/json';
  dataschema?: string;
  dataversion?: string;
  topic?: string;
  subject?: string;
  correlationid?: string;
  /** W3C trace context of the publishing step (CloudEvents distributed-tracing extension) */
  traceparent?: string;
  tracestate?: string;
  data: unknown;
}

async function ev(e: Expression | undefined, ex: Exchange): Promise<unknown> {
  if (!e) return undefined;
  const v = e.evaluate(ex);
  return isPromise(v) ? await v : v;
}

export default defineStep<ToEventHubConfig>({
  kind: 'to-eventhub',
  description:
    'Publishes a CloudEvents 1.0 event (structured mode) to the event hub producer and waits until it is accepted.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['type'],
    properties: {
      client: {
        type: 'string',
        description:
          'event hub profile (connector.yaml of the route folder, with `event:`) giving base-url, timeouts, retry, source, version and topic; the keys of the step override them',
      },
      path: {
        type: 'string',
        description: 'with a client: appended to its base-url (default: none, the base-url is the producer URL)',
      },
      url: { type: 'string', description: 'without a client: the event hub producer URL (asb.producer.apiUri)' },
      type: { type: 'string', description: 'CloudEvents type' },
      source: { type: 'string', description: 'CloudEvents source (required here or in the client)' },
      version: { type: 'string', description: 'schema version of the data (dataversion, dataschema)' },
      topic: { type: 'string', description: 'topic, sent as the `topic` extension attribute' },
      id: {
        type: 'string',
        description:
          'JSONata for the event id; make it stable for a redelivered input (default: from the AMQP message id, else random)',
      },
      subject: { type: 'string', description: 'JSONata for the CloudEvents subject' },
      data: { type: 'string', description: 'JSONata for the event data (default: the body)' },
      timeouts: timeoutsSchema,
      retry: retrySchema,
      into: {
        type: 'string',
        pattern: TARGET_PATTERN,
        description: 'where to keep the published event: body, status or vars.<name> (default: not kept)',
      },
      outbox: OUTBOX_SCHEMA,
    },
  },
  compile(cfg, ctx) {
    const url: string =
      cfg.url ?? ctx.fail("to-eventhub needs 'client' (an event hub profile of connector.yaml) or the producer 'url'");
    const source: string =
      cfg.source ??
      ctx.fail(
        "to-eventhub needs the event's 'source', here or in the 'event' of its client",
        cfg.client !== undefined ? ['client'] : [],
      );
    const idExpr = cfg.id ? ctx.expr(cfg.id, ['id']) : undefined;
    const subjectExpr = cfg.subject ? ctx.expr(cfg.subject, ['subject']) : undefined;
    const dataExpr = cfg.data ? ctx.expr(cfg.data, ['data']) : undefined;
    const timeouts = toTimeouts(cfg.timeouts, DEFAULT_TIMEOUTS);
    const retry = checkedRetrySettings(cfg.retry, (m, path) => ctx.fail(m, path));
    const policy = retryPolicy(retry, true);
    const gref = (cfg as { [CLIENT_GUARD]?: GuardRef })[CLIENT_GUARD];
    const guard =
      gref && !ctx.services.lintOnly
        ? ctx.services.http.guards.use(ctx.route.id, gref.key, gref.label, gref.file, gref.settings)
        : undefined;
    const dispatcher = ctx.services.lintOnly
      ? undefined
      : ctx.services.http.get({ connections: 50, connectTimeout: timeouts.connect, proxy: false });
    const { metrics, tracing } = ctx.services;
    const routeId = ctx.route.id;
    const keep = cfg.into ? compileTarget(cfg.into) : undefined;
    const dataschema = cfg.version ? `urn:${source}:${cfg.type}:${cfg.version}` : undefined;
    const from = ctx.route.from;
    const outbox =
      !ctx.services.lintOnly &&
      !ctx.services.outboxOff &&
      (cfg.outbox === undefined ? from?.kind === 'http' : cfg.outbox === true || cfg.outbox === 'true')
        ? outboxFor(ctx.services)
        : undefined;
    outbox?.register(routeId, { timeouts, retry, guard });

    return describeStep(
      async (ex: Exchange) => {
        const tctx = tracing.tracer ? ex.trace : undefined;
        const [id, subject, data] = await Promise.all([
          ev(idExpr, ex),
          ev(subjectExpr, ex),
          dataExpr ? ev(dataExpr, ex) : ex.body,
        ]);
        const msgId = ex.message?.messageId;
        const event: CloudEvent = {
          specversion: '1.0',
          id:
            id !== undefined && id !== null
              ? String(id)
              : msgId !== undefined
                ? stableId(cfg.type, msgId)
                : randomUUID(),
          source,
          type: cfg.type,
          time: new Date().toISOString(),
          datacontenttype: 'application/json',
          ...(dataschema ? { dataschema, dataversion: cfg.version } : {}),
          ...(cfg.topic ? { topic: cfg.topic } : {}),
          ...(subject !== undefined && subject !== null ? { subject: String(subject) } : {}),
          correlationid: ex.correlationId,
          ...(tctx ? traceContextOf(tracing, tctx) : {}),
          data,
        };
        const body = JSON.stringify(event);
        // a replay publishes during its run: its outcome is the hub's answer
        if (outbox && !ex.replayOf) {
          const headers: Record<string, string> = {
            'content-type': 'application/cloudevents+json',
            'x-correlation-id': ex.correlationId,
          };
          if (event.traceparent) headers.traceparent = event.traceparent;
          if (event.tracestate) headers.tracestate = event.tracestate;
          const input = webhookInput(ex, from);
          let written: 'inserted' | 'duplicate' | 'unavailable';
          try {
            written = await outbox.insert({
              route: routeId,
              dedupeKey: ex.dedupeKey,
              orderKey: event.subject ?? ex.dedupeKey ?? event.id,
              eventId: event.id,
              eventType: event.type,
              url,
              headers,
              event: body,
              inputBody: input.body,
              inputHeaders: input.headers,
              inputContext: input.context,
              traceId: event.traceparent?.split('-')[1],
              correlationId: ex.correlationId,
            });
          } catch (e) {
            throw new PlatformError({
              kind: 'eventhub',
              detail: 'the outbox (durable store) did not take the event',
              transient: true,
              cause: e,
            });
          }
          if (written === 'duplicate') {
            // its event waits in the outbox already: the webhook was accepted before a crash
            ex.log.info(
              { key: ex.dedupeKey, eventId: event.id },
              'duplicate input skipped (its event is in the outbox)',
            );
            ex.body = { status: 'duplicate' };
            ex.stopped = true;
            return;
          }
          if (written === 'inserted') {
            metrics.events.inc({ route: routeId, type: cfg.type, outcome: 'queued' });
            ex.log.info({ eventId: event.id, type: event.type, topic: event.topic }, 'event queued in the outbox');
            if (keep) keep(ex, event);
            return;
          }
          // the store did not open: published now, as without the outbox
        }
        let last: PlatformError | undefined;
        const once = async (attempt: number) => {
          // the route's deadline: no publication starts past it, and one ends its wait with it
          let t = timeouts;
          if (ex.deadline !== undefined) {
            const left = ex.deadline.at - performance.now();
            if (left <= 0) {
              metrics.events.inc({ route: routeId, type: cfg.type, outcome: 'failed' });
              throw (last = deadlineError(ex, attempt, last));
            }
            if (left < t.response) t = { ...t, response: Math.ceil(left) };
          }
          if (attempt > 0) {
            const refusal = guard && last ? guard.retryRefusal() : undefined;
            if (refusal) {
              last!.noRetry = refusal;
              throw last;
            }
            metrics.retries.inc({ route: routeId, target: 'eventhub' });
            ex.log.warn({ eventId: event.id, attempt, of: retry.maxRetries }, 'retrying event publication');
          } else guard?.call();
          // the event hub's circuit breaker and bulkhead: refused, the event is not sent (the input waits)
          let token = 0;
          if (guard) {
            try {
              const g = guard.enter();
              token = typeof g === 'number' ? g : await g;
            } catch (e) {
              const pe = e as PlatformError;
              metrics.events.inc({ route: routeId, type: cfg.type, outcome: 'failed' });
              throw (last = new PlatformError({
                kind: 'eventhub',
                status: 503,
                detail: `event hub: ${pe.detail ?? pe.message}`,
                transient: true,
                refusedBy: pe.refusedBy,
                headers: pe.headers,
                cause: e,
              }));
            }
          }
          let status: number;
          const span = tctx
            ? startCallSpan(
                tracing,
                tctx,
                `publish ${event.topic ?? event.type}`,
                SpanKind.PRODUCER,
                spanAttributes(event, attempt),
              )
            : undefined;
          if (span) eventPublished(tracing, span, event);
          try {
            const headers = { 'content-type': 'application/cloudevents+json', 'x-correlation-id': ex.correlationId };
            const r = await httpCall({
              method: 'POST',
              url,
              headers: span ? withTraceHeaders(tracing, headers, tctx!, span) : headers,
              body,
              timeouts: t,
              dispatcher: dispatcher!,
              signal: ex.signal,
            });
            status = r.status;
          } catch (e) {
            metrics.events.inc({ route: routeId, type: cfg.type, outcome: 'failed' });
            const pe = e as PlatformError;
            guard?.leave(token, ex.signal?.aborted ? undefined : false, pe.detail ?? pe.message);
            if (span) endSpan(tracing, span, e);
            throw (last = new PlatformError({
              kind: 'eventhub',
              detail: `event hub: ${pe.detail ?? pe.message}`,
              transient: true,
              cause: e,
            }));
          }
          guard?.answered(token, status, 'event hub');
          span?.setAttribute('http.response.status_code', status);
          if (status >= 200 && status < 300) {
            if (span) endSpan(tracing, span);
            return;
          }
          metrics.events.inc({ route: routeId, type: cfg.type, outcome: 'failed' });
          if (span) endSpan(tracing, span, { kind: 'eventhub' });
          throw (last = new PlatformError({
            kind: 'eventhub',
            vendorStatus: status,
            detail: `event hub answered ${status}`,
            // only a refusal of the event itself (400, 422) is permanent; anything else (401 after
            // a credential rotation, 404 from a wrong path, 5xx) is for an operator to fix, and
            // the input waits for it: a message source releases instead of rejecting
            transient: status !== 400 && status !== 422,
          }));
        };
        if (policy) await policy.execute((c) => once(c.attempt));
        else await once(0);
        metrics.events.inc({ route: routeId, type: cfg.type, outcome: 'published' });
        ex.log.info({ eventId: event.id, type: event.type, topic: event.topic }, 'event published');
        if (keep) keep(ex, event);
      },
      'to-eventhub',
      ctx.base,
    );
  },
  withClient(p, cfg) {
    // base-url -> url, timeouts and retry merged, event attributes the step leaves out; an HTTP
    // client's headers or proxy would be silently dropped here: say so instead
    const http = HTTP_ONLY.filter((k) => p.settings[k] !== undefined);
    if (http.length)
      throw new ConfigError(
        `client '${p.name}' is an HTTP client (it sets ${http.join(', ')}), which to-eventhub does not send: name a profile with base-url, timeouts, retry and event`,
        ['client'],
      );
    const { path, ...step } = cfg;
    const { timeouts, retry, event } = p.settings;
    const merged = mergeSettings(
      { ...(event ?? {}), ...(timeouts ? { timeouts } : {}), ...(retry ? { retry } : {}) },
      step,
    );
    merged.url = joinUrl(String(p.settings['base-url']), path === undefined ? '' : String(path));
    return withGuard(p, merged);
  },
  references: clientReference,
  graph: (c, g) => ({
    label: g.oneLine(g.text(c.type) ?? 'event'),
    target: { kind: 'event', name: g.text(c.topic) ?? g.text(c.type) ?? 'event hub' },
  }),
  example: `id: example-to-eventhub
values: payment-inbound-v1
from:
  http:
    path: /examples/events
steps:
  - to-eventhub:
      url: "{{asb.producer.apiUri}}"
      type: "{{asb.payment.status.event.type}}"
      source: "{{asb.payment.status.event.source}}"
      version: "{{asb.payment.status.event.version}}"
      topic: "{{asb.event.topic}}"
      id: "$stableId('example', body.bankReferenceId)"   # the same input gives the same event id
      subject: body.bankReferenceId
      retry: { enabled: true, max-retries: 3, delay: 200, statuses: "502,503,504" }
      into: vars.event
  - set:
      values:
        body: "{ 'eventId': vars.event.id }"`,
});

/** What a publication span names: the event's id, type and topic, never its data. */
function spanAttributes(event: CloudEvent, attempt: number): Record<string, string | number> {
  const a: Record<string, string | number> = {
    'messaging.system': 'eventhub',
    'messaging.operation.type': 'send',
    'cloudevents.event_id': event.id,
    'cloudevents.event_type': event.type,
    'cloudevents.event_source': event.source,
  };
  if (event.topic) a['messaging.destination.name'] = event.topic;
  if (attempt > 0) a['http.request.resend_count'] = attempt;
  return a;
}
