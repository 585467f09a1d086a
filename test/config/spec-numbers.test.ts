// The specification's numbers ("Limits" and the property tables), pinned on the SHIPPED values
// files with no overrides, through the engine's own loading (loadValues, the gateway's
// readSettings), in every shipped environment; then on what the compiled routes use (the to-http
// and to-eventhub steps' timeouts, retries and pool size, the addenda rules), so a values file or
// a route drifting from the specification fails here.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadValues, type ValuesSet } from '../../engine/config/values.ts';
import { readSettings } from '../../engine/gateway/config.ts';
import { lintProject } from '../../engine/engine.ts';
import { STEP_KINDS } from '../../engine/steps/registry.ts';
import { CompileContext } from '../../engine/pipeline/compile-context.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import type { Timeouts } from '../../engine/outbound/http-client.ts';
import type { RetrySettings } from '../../engine/outbound/retry.ts';

interface Compiled {
  kind: string;
  route: string;
  file: string;
  cfg: Record<string, any>;
  timeouts?: Timeouts;
  retry?: RetrySettings;
  expressions?: string[];
}

// what the outbound steps compile to: the shared helpers' results, recorded per step
const rec = vi.hoisted(() => ({ current: undefined as Compiled | undefined, all: [] as Compiled[] }));
vi.mock('../../engine/steps/shared-schemas.ts', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../engine/steps/shared-schemas.ts')>();
  return {
    ...orig,
    toTimeouts: (...a: Parameters<typeof orig.toTimeouts>) => {
      const t = orig.toTimeouts(...a);
      if (rec.current) rec.current.timeouts = t;
      return t;
    },
    checkedRetrySettings: (...a: Parameters<typeof orig.checkedRetrySettings>) => {
      const r = orig.checkedRetrySettings(...a);
      if (rec.current) rec.current.retry = r;
      return r;
    },
  };
});

const ENVIRONMENTS = ['sandbox', 'development', 'staging', 'production'];
const BATCH = ['batch-payments-v0', 'inbound-batch-payments-v0'];
const HUB = ['v2/payment-v2', 'foreign-exchange-v1'];

/** As lint loads them: environmental keys may be unset, `simulator:NAME` stands for a simulator. */
function load(env: string): ValuesSet {
  const values = loadValues({ dir: 'values', env, processEnv: {}, lenient: true });
  values.keys.setSimulatorUrls(new Proxy({}, { get: (_t, name) => `http://127.0.0.1:9/${String(name)}` }));
  return values;
}
const props = (v: ValuesSet, file: string, keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, v.find(file)!.get(k)]));

describe.each(ENVIRONMENTS)('the specification in the shipped values (%s)', (env) => {
  const values = load(env);

  it('gateway limits: anonymous 50 / 60 s per client IP, 500 / 60 s per user, quotas 100 and 50 per minute', () => {
    expect(readSettings(values).rateLimits).toEqual({
      windowSeconds: 60,
      anonymous: 50,
      user: 500,
      subscriptionPublic: 100,
      subscriptionUser: 50,
    });
  });

  it('gateway tasks: kept an hour from their creation, at most 100 running in one engine', () => {
    expect(readSettings(values).tasks).toEqual({ ttlSeconds: 3600, maxRunning: 100 });
  });

  it.each(BATCH)('batch connector defaults (%s)', (file) => {
    expect(
      props(values, file, [
        'connectionsPerRoute',
        'http.client.connect.timeout',
        'http.client.request.timeout',
        'http.client.response.timeout',
        'retryFlag',
        'redelivery.maximumRetries',
        'redelivery.delay',
        'redelivery.backOffMultiplier',
        'retry.statuses',
        'errorTemplate',
        'achvendor.api_path.batch_cancel',
      ]),
    ).toEqual({
      connectionsPerRoute: 200,
      'http.client.connect.timeout': 5000,
      'http.client.request.timeout': 10000,
      'http.client.response.timeout': 15000,
      retryFlag: true,
      'redelivery.maximumRetries': 3,
      'redelivery.delay': 200,
      'redelivery.backOffMultiplier': 2,
      'retry.statuses': '429,500,502,503,504',
      errorTemplate: 'transform-achvendor-error-details.json',
      'achvendor.api_path.batch_cancel': '/fasterpayments/v1/masspayment/cancelbatch',
    });
  });

  it('outbound batch: socket 10000 ms, vendor paths, DED 7 and TXP 8 fields', () => {
    expect(
      props(values, 'batch-payments-v0', [
        'http.client.socket.timeout',
        'achvendor.api_path.submit_credit_batch',
        'achvendor.api_path.submit_debit_batch',
        'sec.code.ded.prefix',
        'sec.code.txp.prefix',
        'sec.code.ded.semicolon.count',
        'sec.code.txp.semicolon.count',
      ]),
    ).toEqual({
      'http.client.socket.timeout': 10000,
      'achvendor.api_path.submit_credit_batch': '/fasterpayments/v1/masspayment/submitcreditbatch',
      'achvendor.api_path.submit_debit_batch': '/fasterpayments/v1/masspayment/submitdebitbatch',
      'sec.code.ded.prefix': 'DED',
      'sec.code.txp.prefix': 'TXP',
      'sec.code.ded.semicolon.count': 7,
      'sec.code.txp.semicolon.count': 8,
    });
  });

  it('inbound batch: socket 5000 ms, event source com.platform.payments', () => {
    expect(props(values, 'inbound-batch-payments-v0', ['http.client.socket.timeout', 'asb.event.source'])).toEqual({
      'http.client.socket.timeout': 5000,
      'asb.event.source': 'com.platform.payments',
    });
  });

  it.each(HUB)('hub connector retries (%s)', (file) => {
    expect(
      props(values, file, [
        'retryFlag',
        'maximumRedeliveries',
        'redeliveryDelay',
        'retryStatuses',
        'backOffMultiplier',
      ]),
    ).toEqual({
      retryFlag: true,
      maximumRedeliveries: 3,
      redeliveryDelay: 200,
      retryStatuses: '429,502,503,504',
      backOffMultiplier: 2,
    });
  });
});

describe('the specification in the compiled routes (sandbox)', () => {
  const ROUTES = [
    'routes/achvendor-batch-payment',
    'routes/achvendor-batch-payment-inbound',
    'routes/hubvendor-foreign-exchange',
    'routes/hubvendor-payment',
  ];
  const wrapped = ['to-http', 'to-eventhub', 'validate'].map((kind) => {
    const sk = STEP_KINDS.get(kind)!;
    return { sk, compile: sk.compile };
  });
  let compiled: Compiled[] = [];

  // the JSONata a step compiles, as compiled: rule files with their {{properties}} resolved
  const expr = CompileContext.prototype.expr;
  beforeAll(async () => {
    CompileContext.prototype.expr = function (source, path) {
      if (rec.current && typeof source === 'string') (rec.current.expressions ??= []).push(source);
      return expr.call(this, source, path);
    };
    for (const { sk, compile } of wrapped) {
      sk.compile = (cfg, ctx) => {
        const r: Compiled = { kind: sk.kind, route: ctx.route.id, file: ctx.route.file, cfg };
        rec.all.push(r);
        rec.current = r;
        try {
          return compile.call(sk, cfg, ctx);
        } finally {
          rec.current = undefined;
        }
      };
    }
    const diagnostics = await lintProject({ routes: ROUTES, env: 'sandbox', logger: createLogger('silent') });
    expect(diagnostics).toEqual([]);
    compiled = rec.all;
  });
  afterAll(() => {
    for (const { sk, compile } of wrapped) sk.compile = compile;
    CompileContext.prototype.expr = expr;
  });

  /** the steps of one kind compiled from the route files of one connector folder */
  const steps = (dir: string, kind = 'to-http') =>
    compiled.filter((c) => c.file.startsWith(`routes/${dir}/`) && c.kind === kind);
  const BATCH_RETRY = { enabled: true, maxRetries: 3, delay: 200, multiplier: 2, statuses: [429, 500, 502, 503, 504] };

  it('ACH vendor calls: 200 connections, 5000/10000/15000 ms, socket 10000 (outbound) and 5000 (inbound), 3 retries 200 ms x2', () => {
    const outbound = steps('achvendor-batch-payment');
    const inbound = steps('achvendor-batch-payment-inbound');
    // credit and debit submission, cancel; the inbound connector's cancel of a rejected batch
    expect(outbound.map((c) => c.cfg.name).sort()).toEqual([
      'achvendor-batch-cancel',
      'achvendor-submit-credit-batch',
      'achvendor-submit-debit-batch',
    ]);
    expect(inbound.map((c) => c.cfg.name)).toEqual(['achvendor-batch-cancel']);
    for (const [list, socket] of [
      [outbound, 10000],
      [inbound, 5000],
    ] as const) {
      for (const c of list) {
        expect(c.cfg.connections, `${c.route} connections`).toBe(200);
        expect(c.timeouts, `${c.route} timeouts`).toEqual({ connect: 5000, request: 10000, response: 15000, socket });
        expect(c.retry, `${c.route} retry`).toMatchObject(BATCH_RETRY);
      }
    }
  });

  it('batch events to the event hub retry like the vendor calls, with the inbound socket timeout', () => {
    const events = steps('achvendor-batch-payment-inbound', 'to-eventhub');
    expect(new Set(events.map((c) => c.route))).toEqual(
      new Set(['batch-status-update', 'batch-payment-status-update']),
    );
    for (const c of events) {
      expect(c.timeouts).toEqual({ connect: 5000, request: 10000, response: 15000, socket: 5000 });
      expect(c.retry).toMatchObject(BATCH_RETRY);
    }
  });

  it('hub connectors retry 3 times, 200 ms x2, on 429,502,503,504', () => {
    const hub = [...steps('hubvendor-payment'), ...steps('hubvendor-foreign-exchange')];
    expect(new Set(hub.map((c) => c.route))).toEqual(
      new Set([
        'bank-directory',
        'cancel-payment',
        'initiate-payment-order',
        'modify-payment-order',
        'get-exchange-rate',
      ]),
    );
    for (const c of hub) {
      expect(c.retry, `${c.route} retry`).toMatchObject({
        enabled: true,
        maxRetries: 3,
        delay: 200,
        multiplier: 2,
        statuses: [429, 502, 503, 504],
      });
    }
  });

  it('the addenda rules check DED records for 7 fields and TXP records for 8', () => {
    const rules = steps('achvendor-batch-payment', 'validate')
      .flatMap((c) => c.expressions ?? [])
      .join('\n');
    expect(rules).toContain("$ded := 'DED'");
    expect(rules).toContain("$txp := 'TXP'");
    expect(rules).toContain('$check($text, $ded, 7)');
    expect(rules).toMatch(/\$check\(\$text, \$txp, 8\)/);
  });
});
