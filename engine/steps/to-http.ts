// to-http: calls a vendor over HTTP (undici, pooled keep-alive) with timeouts, retries from
// values and a safe URL template. A step usually names a client profile (`client:`, merged in by
// the loader: engine/dsl/clients.ts) and gives only its path and what differs. The vendor's answer
// goes to the body (or `into`); an error status becomes a `vendor` PlatformError that on-exception
// maps to a platform code, with the vendor's text masked (credentials) and bounded before any
// template or log line sees it.

import { defineStep } from './step-kind.ts';
import { truthy } from './truthy.ts';
import { PlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { isPromise, type Expression } from '../expressions/expressions.ts';
import { compileTarget, TARGET_PATTERN } from '../pipeline/targets.ts';
import { compileUrlTemplate } from '../outbound/url-template.ts';
import {
  httpCall,
  redirectUrl,
  splitUrl,
  DEFAULT_TIMEOUTS,
  type Timeouts,
  type HttpResult,
} from '../outbound/http-client.ts';
import { retryPolicy, retryDelay, isRetryable, mayHaveBeenProcessed, type RetrySettings } from '../outbound/retry.ts';
import { deadlineError } from '../pipeline/deadline.ts';
import {
  compileSecrets,
  configuredSecrets,
  credentialOf,
  isSecretHeader,
  maskDeep,
  maskText,
  type Secrets,
} from '../observability/mask.ts';
import {
  retrySchema,
  timeoutsSchema,
  checkedRetrySettings,
  toTimeouts,
  BASE_URL_PROPERTIES,
  type RetryConfig,
  type TimeoutsConfig,
} from './shared-schemas.ts';
import { clock, sliceStart, yieldAfter } from '../pipeline/slices.ts';
import { describeStep, startHttpCallSpan, withTraceHeaders, endSpan } from '../pipeline/tracing.ts';
import { callAnswer, callRequest } from '../pipeline/tracing-detail.ts';
import { VendorAnswer } from '../pipeline/vendor-answer.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import type { Dispatcher } from 'undici';
import type { Context } from '@opentelemetry/api';
import { ConfigError } from '../core/diagnostics.ts';
import { clientReference, joinUrl, mergeSettings } from './client-profile.ts';
import { withGuard, CLIENT_GUARD, type GuardRef } from './guard-schemas.ts';

interface ToHttpConfig {
  name?: string;
  /** the profile this config was merged from; `url` is then its base-url + the step's path */
  client?: string;
  method?: Dispatcher.HttpMethod;
  url?: string;
  'path-params'?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  'static-headers'?: Record<string, string | number | boolean>;
  'forward-headers'?: string[];
  body?: string;
  timeouts?: TimeoutsConfig;
  retry?: RetryConfig;
  'idempotency-key'?: string;
  'idempotency-header'?: string;
  proxy?: boolean;
  connections?: number;
  into?: string;
  'accept-statuses'?: number[];
  'error-code'?: string;
  'already-done'?: AlreadyDoneConfig;
}

interface AlreadyDoneConfig {
  statuses: number[];
  when: string;
  answer?: string;
  flag?: string;
}

/** Per call: whether an earlier attempt failed in a way the vendor may have processed it. */
interface CallState {
  ambiguous: boolean;
}

/** One attempt under way: the vendor's answer to come, its span, when it started, its guard token. */
interface Sent {
  answer: Promise<HttpResult>;
  span: ReturnType<typeof startHttpCallSpan> | undefined;
  started: number;
  /** the client guard's token (outbound/client-guard.ts), -1 while queued in its bulkhead */
  token: number;
}

interface Outcome {
  r: HttpResult;
  alreadyDone: boolean;
}

type Pairs = [string, Expression][];

/** Evaluates pairs without promises when every expression is synchronous (the common case). */
function evalPairsSync(pairs: Pairs, ex: Exchange): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, e] of pairs) {
    const v = e.evaluate(ex);
    if (isPromise(v)) return undefined;
    if (v !== undefined && v !== null) out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/** Evaluates name->expression pairs; undefined and null results are left out. */
async function evalPairs(pairs: Pairs, ex: Exchange): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, e] of pairs) {
    let v = e.evaluate(ex);
    if (isPromise(v)) v = await v;
    if (v !== undefined && v !== null) out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

export default defineStep<ToHttpConfig>({
  kind: 'to-http',
  description:
    'Calls an HTTP endpoint (a vendor) with a URL template, query, headers and a JSON body; timeouts, retries, proxy and pool size from values.',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      client: {
        type: 'string',
        description:
          'HTTP client profile (connector.yaml of the route folder) giving base-url, timeouts, retry, proxy, headers and pool size; the keys of the step override or add to it',
      },
      name: {
        type: 'string',
        description: 'name of the target in logs, metrics and route test stubs (default: the client, else the host)',
      },
      method: {
        enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'],
        default: 'GET',
        description: 'HTTP method of the call',
      },
      path: {
        type: 'string',
        description:
          'with a client: appended to its base-url, e.g. "{{acme.paymentOrders.apiUri}}"; `{name}` parameters are filled from path-params, URL-encoded',
      },
      url: {
        type: 'string',
        description:
          'without a client: the absolute URL; `{name}` path parameters are filled from path-params, URL-encoded',
      },
      'path-params': { type: 'object', additionalProperties: { type: 'string' }, description: 'parameter: JSONata' },
      query: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'parameter: JSONata (undefined leaves it out)',
      },
      headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'header: JSONata' },
      'static-headers': {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description:
          'header: literal value, e.g. "{{acme.client_key}}"; use these for secrets, which never belong in expression text; empty values are left out',
      },
      'forward-headers': {
        type: 'array',
        items: { type: 'string' },
        description: 'incoming headers passed on unchanged (e.g. authorization)',
      },
      body: {
        type: 'string',
        description: 'JSONata producing the JSON request body (default: the exchange body for POST, PUT, PATCH)',
      },
      timeouts: timeoutsSchema,
      retry: retrySchema,
      'idempotency-key': {
        type: 'string',
        description: 'JSONata giving a key the vendor deduplicates on; makes a POST safe to retry',
      },
      'idempotency-header': {
        type: 'string',
        default: 'Idempotency-Key',
        description: 'header that carries the idempotency-key value',
      },
      proxy: {
        type: 'boolean',
        default: false,
        description: 'send through the proxy of HTTP_PROXY / HTTPS_PROXY (http.client.proxy.activate)',
      },
      connections: {
        type: 'integer',
        minimum: 1,
        default: 200,
        description: 'pool size per vendor origin (connectionsPerRoute)',
      },
      into: {
        type: 'string',
        pattern: TARGET_PATTERN,
        default: 'body',
        description: 'where the vendor answer goes: body, status or vars.<name>',
      },
      'accept-statuses': {
        type: 'array',
        items: { type: 'integer' },
        description: 'non-2xx statuses treated as an answer, not an error',
      },
      'error-code': { type: 'string', description: 'JSONata over the vendor error body giving the vendor code' },
      'already-done': {
        type: 'object',
        additionalProperties: false,
        required: ['statuses', 'when'],
        description:
          'a state change (cancel) retried after an ambiguous failure (timeout, reset after sending, 5xx: the vendor may have done it) whose retry is answered "already in that state" (e.g. 409 order already cancelled): that answer counts as success. Never on a first attempt, nor after a failure that proves the vendor did nothing (refused connection, 429).',
        properties: {
          statuses: {
            type: 'array',
            minItems: 1,
            items: { type: 'integer', minimum: 300, maximum: 599 },
            description: 'vendor statuses that may mean "already done"',
          },
          when: {
            type: 'string',
            description:
              'JSONata over {status, body, headers} of the vendor answer: truthy when it means "already done"',
          },
          answer: {
            type: 'string',
            description:
              'JSONata over the exchange giving the result stored in `into` (default: the vendor answer body)',
          },
          flag: {
            type: 'string',
            pattern: TARGET_PATTERN,
            description:
              'set to true when the answer counted as already done (e.g. vars.alreadyDone, to read the state back)',
          },
        },
      },
    },
  },
  compile(cfg, ctx) {
    const method = cfg.method ?? 'GET';
    const cfgUrl: string =
      cfg.url ?? ctx.fail("to-http needs 'client' (a profile of connector.yaml) with a 'path', or an absolute 'url'");
    // with a client the URL is the profile's base-url + the step's path: problems point at the path
    const urlKey = cfg.client !== undefined ? 'path' : 'url';
    const template = compileUrlTemplate(cfgUrl);
    const lenient = cfgUrl.includes('<unresolved:');
    // the origin split off once here, so that a call only fills in its path
    const fixedOrigin = lenient ? undefined : splitOrigin(cfgUrl);
    if (!lenient) {
      try {
        const u = new URL(template.names.length ? cfgUrl.replace(/\{[^}]+\}/g, 'x') : cfgUrl);
        if (u.protocol !== 'http:' && u.protocol !== 'https:')
          ctx.fail(`url must be http or https, got '${u.protocol}'`, [urlKey]);
      } catch (e) {
        if (e instanceof PlatformError || (e as Error).name === 'ConfigError') throw e;
        ctx.fail(`url is not an absolute URL: '${cfgUrl}'`, [urlKey]);
      }
    }
    const pathParams = cfg['path-params'] ?? {};
    const props = [
      ...((cfg as { [BASE_URL_PROPERTIES]?: string[] })[BASE_URL_PROPERTIES] ?? []),
      ...ctx.propertiesAt([urlKey]),
    ];
    const propNote = props.length ? ` (from ${props.map((p) => `'${p}'`).join(' + ')})` : '';
    for (const n of template.names) {
      if (!(n in pathParams)) ctx.fail(`url template has {${n}} but path-params gives no '${n}'${propNote}`, [urlKey]);
    }
    for (const n of Object.keys(pathParams)) {
      if (!template.names.includes(n))
        ctx.fail(`url template '${cfgUrl}'${propNote} lacks the placeholder {${n}}`, [urlKey]);
    }
    const pp: Pairs = Object.entries(pathParams).map(([k, e]) => [k, ctx.expr(e, ['path-params', k])]);
    const qp: Pairs = Object.entries(cfg.query ?? {}).map(([k, e]) => [k, ctx.expr(e, ['query', k])]);
    const hp: Pairs = Object.entries(cfg.headers ?? {}).map(([k, e]) => [k.toLowerCase(), ctx.expr(e, ['headers', k])]);
    const forward = (cfg['forward-headers'] ?? []).map((h) => h.toLowerCase());
    const fixed: [string, string][] = Object.entries(cfg['static-headers'] ?? {})
      .filter(([, v]) => v !== '')
      .map(([k, v]) => [k.toLowerCase(), String(v)]);
    const bodyExpr = cfg.body !== undefined ? ctx.expr(cfg.body, ['body']) : undefined;
    const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
    const idemExpr = cfg['idempotency-key'] ? ctx.expr(cfg['idempotency-key'], ['idempotency-key']) : undefined;
    const idemHeader = (cfg['idempotency-header'] ?? 'Idempotency-Key').toLowerCase();
    const errorCode = cfg['error-code'] ? ctx.expr(cfg['error-code'], ['error-code']) : undefined;
    const accept = new Set(cfg['accept-statuses'] ?? []);
    const timeouts: Timeouts = toTimeouts(cfg.timeouts, DEFAULT_TIMEOUTS);
    const retry: RetrySettings = checkedRetrySettings(cfg.retry, (m, path) => ctx.fail(m, path));
    // GET/PUT/DELETE are idempotent by HTTP; a POST only with a key the vendor deduplicates on.
    const idempotent = method !== 'POST' && method !== 'PATCH' ? true : !!idemExpr;
    const policy = retryPolicy(retry, idempotent);
    const gref = (cfg as { [CLIENT_GUARD]?: GuardRef })[CLIENT_GUARD];
    const guard =
      gref && !ctx.services.lintOnly
        ? ctx.services.http.guards.use(ctx.route.id, gref.key, gref.label, gref.file, gref.settings)
        : undefined;
    const dispatcher = ctx.services.lintOnly
      ? undefined
      : ctx.services.http.get({
          connections: cfg.connections ?? 200,
          connectTimeout: timeouts.connect,
          proxy: cfg.proxy === true,
        });
    const target = cfg.name ?? (lenient ? 'vendor' : safeHost(cfgUrl));
    const clients = ctx.services.http;
    clients.targets.add(target);
    const tracing = ctx.services.tracing;
    const set = compileTarget(cfg.into);
    const tm = ctx.services.metrics.target(ctx.route.id, target);
    // secrets known at load time (secret environmental keys of the values file, secret static
    // headers) are masked in vendor text, in every form, beside the shapes mask.ts recognises
    const loadSecrets = compileSecrets([
      ...configuredSecrets(ctx.values),
      ...fixed.filter(([k]) => isSecretHeader(k)).map(([, v]) => v),
    ]);
    // kept for the log line of an answer that breaks the route's output schema (pipeline/output-check.ts)
    const keepAnswer = ctx.route.checksOutput === true;
    const done = cfg['already-done'];
    const doneStatuses = new Set(done?.statuses ?? []);
    const doneWhen = done ? ctx.expr(done.when, ['already-done', 'when']) : undefined;
    const doneAnswer = done?.answer !== undefined ? ctx.expr(done.answer, ['already-done', 'answer']) : undefined;
    const doneFlag = done?.flag !== undefined ? compileTarget(done.flag) : undefined;
    if (done && !policy)
      ctx.log.debug({ route: ctx.route.id, target }, 'to-http: already-done has no effect without retries');

    /** The credentials this call sent (configured or forwarded from the caller): a vendor may echo them. */
    const sentSecrets = (h: Record<string, string>): Secrets => {
      const out: string[] = [];
      for (const k in h) if (isSecretHeader(k)) out.push(h[k], credentialOf(h[k]));
      return loadSecrets.with(out);
    };

    const vendorError = async (r: HttpResult, h: Record<string, string>): Promise<PlatformError> => {
      let code: unknown;
      if (errorCode) {
        try {
          code = errorCode.evaluate({ body: r.body, status: r.status, headers: r.headers });
          if (isPromise(code)) code = await code;
        } catch {
          code = undefined;
        }
      }
      const secrets = sentSecrets(h);
      return new PlatformError({
        kind: 'vendor',
        vendorStatus: r.status,
        vendorCode: code === undefined || code === null ? undefined : maskText(String(code), secrets),
        vendorBody: maskDeep(r.body, secrets),
        detail: `${target} answered ${r.status}`,
        extensions: { vendorHeaders: pickHeaders(r.headers) },
      });
    };

    /** A retry after an ambiguous failure answered "already in that state". */
    const isAlreadyDone = async (r: HttpResult, call: CallState | undefined): Promise<boolean> => {
      if (!call?.ambiguous || !doneStatuses.has(r.status)) return false;
      try {
        let v = doneWhen!.evaluate({ status: r.status, body: r.body, headers: r.headers });
        if (isPromise(v)) v = await v;
        return truthy(v);
      } catch {
        return false;
      }
    };

    // one attempt of the call (made once per step, not per exchange), traced under `tctx` when
    // given: send() starts it, then failed() or answered() take its outcome. The step awaits the
    // first attempt's call itself (no async function around it: one promise less per call);
    // retries go through once().
    const send = (
      ex: Exchange,
      url: string,
      split: { origin: string; path: string } | undefined,
      h: Record<string, string>,
      body: string | undefined,
      attempt: number,
      tctx?: Context,
    ): Sent => {
      if (attempt > 0) {
        tm.retry();
        ex.log.warn({ target, attempt, of: retry.maxRetries }, 'retrying vendor call');
      }
      // a deadline near: this attempt's timeouts end with it; past it, no attempt is made
      let t = timeouts;
      if (ex.deadline !== undefined) {
        const left = ex.deadline.at - performance.now();
        if (left <= 0) throw deadlineError(ex, attempt, undefined);
        if (left < t.response) t = { ...t, response: Math.ceil(left) };
      }
      const sent: Sent = { answer: undefined as unknown as Promise<HttpResult>, span: undefined, started: 0, token: 0 };
      if (guard) {
        if (attempt === 0) guard.call();
        const g = guard.enter();
        if (typeof g !== 'number') {
          // waiting for a place in the client's bulkhead: sent once it has one
          sent.token = -1;
          sent.answer = g.then((token) => {
            sent.token = token;
            return startCall(sent, ex, url, split, h, body, attempt, t, tctx);
          });
          return sent;
        }
        sent.token = g;
      }
      sent.answer = startCall(sent, ex, url, split, h, body, attempt, t, tctx);
      return sent;
    };

    /** The vendor call of an attempt the guard let through: its span started, its start time kept in `sent`. */
    const startCall = (
      sent: Sent,
      ex: Exchange,
      url: string,
      split: { origin: string; path: string } | undefined,
      h: Record<string, string>,
      body: string | undefined,
      attempt: number,
      t: Timeouts,
      tctx?: Context,
    ): Promise<HttpResult> => {
      const span = tctx ? startHttpCallSpan(tracing, tctx, method, target, url, attempt) : undefined;
      if (span) callRequest(tracing, span, url, h, body);
      sent.span = span;
      sent.started = performance.now();
      return httpCall({
        method,
        url,
        target: split,
        headers: span ? withTraceHeaders(tracing, h, tctx!, span) : h,
        body,
        timeouts: t,
        dispatcher: dispatcher!,
        signal: ex.signal,
      });
    };

    /**
     * Before a retryable failure goes to the retry policy: the retry is dropped when the client's
     * retry budget is spent, and the failure becomes the deadline's when the retry could not start
     * before the route's deadline.
     */
    const mayRetry = (ex: Exchange, e: unknown, attempt: number): unknown => {
      if (!policy || attempt >= retry.maxRetries || !(e instanceof PlatformError) || !isRetryable(e, retry, idempotent))
        return e;
      if (ex.deadline !== undefined && performance.now() + retryDelay(retry, attempt + 1) >= ex.deadline.at)
        return deadlineError(ex, attempt + 1, e);
      // a breaker this failure opened refuses the retry anyway: no retry is taken from the budget
      const refusal = guard?.retryRefusal();
      if (refusal) e.noRetry = refusal;
      return e;
    };

    /** No answer: counted, and the error thrown on. */
    const failed = (sent: Sent, e: unknown, ex: Exchange, attempt: number, call?: CallState): never => {
      if (sent.token === -1) throw e; // refused while queued in the bulkhead: no call was made
      tm.call(0, (performance.now() - sent.started) / 1000);
      if (guard) guard.leave(sent.token, ex.signal?.aborted ? undefined : false, (e as Error).message);
      if (call && mayHaveBeenProcessed(e)) call.ambiguous = true;
      if (sent.span) endSpan(tracing, sent.span, e);
      throw mayRetry(ex, e, attempt);
    };

    /** An answer: the outcome at once for a success, else the vendor error (or "already done"). */
    const answered = (
      sent: Sent,
      r: HttpResult,
      ex: Exchange,
      h: Record<string, string>,
      attempt: number,
      call?: CallState,
    ): Outcome | Promise<Outcome> => {
      const { span } = sent;
      tm.call(r.status, (performance.now() - sent.started) / 1000);
      guard?.answered(sent.token, r.status, target);
      span?.setAttribute('http.response.status_code', r.status);
      if (span) callAnswer(tracing, span, r);
      if ((r.status >= 200 && r.status < 300) || accept.has(r.status)) {
        if (span) endSpan(tracing, span);
        return { r, alreadyDone: false };
      }
      return refused(sent, r, ex, h, attempt, call);
    };

    const refused = async (
      sent: Sent,
      r: HttpResult,
      ex: Exchange,
      h: Record<string, string>,
      attempt: number,
      call?: CallState,
    ): Promise<Outcome> => {
      const { span } = sent;
      if (await isAlreadyDone(r, call)) {
        ex.log.info(
          { target, status: r.status, attempt },
          'vendor answered "already done" to a retry after an ambiguous failure: the first attempt did the work',
        );
        if (span) endSpan(tracing, span);
        return { r, alreadyDone: true };
      }
      const err = await vendorError(r, h);
      if (call && mayHaveBeenProcessed(err)) call.ambiguous = true;
      if (span) endSpan(tracing, span, err);
      throw mayRetry(ex, err, attempt);
    };

    const once = async (
      ex: Exchange,
      url: string,
      split: { origin: string; path: string } | undefined,
      h: Record<string, string>,
      body: string | undefined,
      attempt: number,
      call?: CallState,
      tctx?: Context,
    ): Promise<Outcome> => {
      const sent = send(ex, url, split, h, body, attempt, tctx);
      let r: HttpResult;
      try {
        r = await sent.answer;
      } catch (e) {
        return failed(sent, e, ex, attempt, call);
      }
      return answered(sent, r, ex, h, attempt, call);
    };

    return describeStep(
      async (ex: Exchange) => {
        const tctx = tracing.tracer ? ex.trace : undefined;
        const params = evalPairsSync(pp, ex) ?? (await evalPairs(pp, ex));
        const query = evalPairsSync(qp, ex) ?? (await evalPairs(qp, ex));
        const headers = evalPairsSync(hp, ex) ?? (await evalPairs(hp, ex));
        let url: string;
        try {
          url = template.expand(params);
        } catch (e: any) {
          throw new PlatformError({ kind: 'validation', code: CODE.validation, detail: e.message });
        }
        const qs = queryString(query);
        if (qs) url += (url.includes('?') ? '&' : '?') + qs;
        let split: { origin: string; path: string } | undefined;
        if (clients.redirect) url = redirectUrl(url, target, clients.redirect);
        else if (fixedOrigin) split = { origin: fixedOrigin.origin, path: url.slice(fixedOrigin.length) };
        const h: Record<string, string> = {
          accept: 'application/json',
          'x-correlation-id': ex.correlationId,
          ...headers,
        };
        for (const [k, v] of fixed) h[k] = v;
        for (const name of forward) {
          const v = ex.headers[name];
          if (v !== undefined) h[name] = v;
        }
        let body: string | undefined;
        // a big body (a 5,000-entry batch: about 1.3 MB to build, serialise and hash for its key)
        // lets other exchanges through between its pieces of work (pipeline/slices.ts)
        let started = sendsBody || idemExpr ? sliceStart(ex) : 0;
        if (sendsBody) {
          let b = bodyExpr ? bodyExpr.evaluate(ex) : ex.body;
          if (isPromise(b)) b = await b;
          if (b !== undefined) {
            body = JSON.stringify(b);
            h['content-type'] = 'application/json';
          }
        }
        if (idemExpr) {
          const turn = yieldAfter(started);
          if (turn) {
            await turn;
            started = clock();
          }
          let k = idemExpr.evaluate(ex);
          if (isPromise(k)) k = await k;
          if (k !== undefined && k !== null && k !== '') h[idemHeader] = String(k);
        }
        if (started) {
          const turn = yieldAfter(started);
          if (turn) await turn;
        }
        const call: CallState | undefined = done ? { ambiguous: false } : undefined;
        let outcome: Outcome;
        try {
          const sent = send(ex, url, split, h, body, 0, tctx);
          let r: HttpResult;
          try {
            r = await sent.answer;
          } catch (e) {
            failed(sent, e, ex, 0, call);
          }
          const o = answered(sent, r!, ex, h, 0, call);
          outcome = isPromise(o) ? await o : o;
        } catch (first) {
          if (!policy) throw first;
          // the first attempt runs outside the policy (its bookkeeping costs more than the call's own
          // code); a failure goes to the policy as its attempt 0, which decides about the retries
          outcome = await policy.execute((c) =>
            c.attempt === 0 ? Promise.reject(first) : once(ex, url, split, h, body, c.attempt, call, tctx),
          );
        }
        const { r, alreadyDone } = outcome;
        ex.vars.lastStatus = r.status;
        if (keepAnswer) ex.vendorAnswer = new VendorAnswer(target, r.status, r.body, () => sentSecrets(h));
        if (!alreadyDone) {
          set(ex, r.body);
          return;
        }
        if (doneFlag) doneFlag(ex, true);
        let v = doneAnswer ? doneAnswer.evaluate(ex) : r.body;
        if (isPromise(v)) v = await v;
        set(ex, v);
      },
      'to-http',
      ctx.base,
    );
  },
  withClient(p, cfg) {
    // the whole profile under the step; the client's name is the target name unless the step names one
    if (p.settings.event !== undefined)
      throw new ConfigError(
        `client '${p.name}' is an event hub profile (it has 'event'): name it from a to-eventhub step, or name an HTTP client here`,
        ['client'],
      );
    const { path, ...step } = cfg;
    const merged = mergeSettings(p.settings, step);
    delete merged['base-url'];
    merged.url = joinUrl(String(p.settings['base-url']), path === undefined ? '' : String(path));
    merged.name = cfg.name ?? p.name;
    if (merged.proxy === 'true' || merged.proxy === 'false') merged.proxy = merged.proxy === 'true';
    return withGuard(p, merged);
  },
  references: clientReference,
  graph(c, g) {
    const name = g.text(c.name) ?? g.text(c.client) ?? 'vendor';
    const label = `${g.text(c.method) ?? 'GET'} ${g.oneLine(g.text(c.path) ?? g.text(c.url) ?? '')}`;
    return { label, target: { kind: 'vendor', name } };
  },
  example: `id: example-to-http
values: acme
from:
  http:
    path: /examples/exchange-rates
steps:
  - to-http:
      name: acme-exchange-rates
      method: GET
      url: "{{acme.baseUrl}}/fx/rates/{buyCurrency}/{sellCurrency}/{transactionAmount}/{transactionAmountType}"
      path-params:
        buyCurrency: body.buyCurrency
        sellCurrency: body.sellCurrency
        transactionAmount: "'1'"
        transactionAmountType: "'BUY'"
      query:
        currencyMarket: "'{{acme.currencyMarket}}'"
      forward-headers: [authorization]
      timeouts: { connect: 5000, response: 15000 }
      retry:
        enabled: "{{retryFlag}}"
        max-retries: "{{maximumRedeliveries}}"
        delay: "{{redeliveryDelay}}"
        multiplier: "{{backOffMultiplier}}"
        statuses: "{{retryStatuses}}"
      into: vars.rate`,
});

const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;

/** application/x-www-form-urlencoded, as URLSearchParams writes it; plain values need no encoder. */
function queryString(q: Record<string, string>): string {
  let out = '';
  for (const k in q) {
    const v = q[k];
    if (!FORM_SAFE.test(k) || !FORM_SAFE.test(v)) return new URLSearchParams(q).toString();
    out += (out ? '&' : '') + k + '=' + v;
  }
  return out;
}

/**
 * URL text after the origin that needs no encoding: `{name}` parameters are filled URL-encoded, the query is
 * form-encoded.
 */
const PLAIN_REST = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%?{}]*$/;

/**
 * The origin of a URL template whose host is literal and whose path is plain: its normalized form
 * (the pool key) and the length of its text, so that a call's path is the expanded URL past it.
 * Anything else is split per call.
 */
function splitOrigin(url: string): { origin: string; length: number } | undefined {
  const m = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?=\/)/i.exec(url);
  if (!m || !PLAIN_REST.test(url.slice(m[0].length))) return undefined;
  const parts = splitUrl(`${m[0]}/`);
  return parts && parts.path === '/' ? { origin: parts.origin, length: m[0].length } : undefined;
}

function safeHost(url: string): string {
  try {
    return new URL(url.replace(/\{[^}]+\}/g, 'x')).host;
  } catch {
    return 'vendor';
  }
}

/** Vendor headers kept for error templates (rate limit hints), never authorization. */
function pickHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['retry-after', 'ratelimit-reset', 'ratelimit-remaining', 'ratelimit-limit', 'x-request-id']) {
    const v = h[k];
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
