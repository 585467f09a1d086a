// The console's recorder and API over real sockets, on an in-process sandbox engine with the
// sandbox, gateway and console extensions as the CLI registers them: exchanges recorded from
// the tracing spans (the same spans an exporter gets), bodies masked, live updates over SSE,
// bad input refused with a 400 naming the field.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import { gatewayExtension, type GatewayExtension } from '../../engine/gateway/index.ts';
import { tryTool } from '../../engine/console/try-tool.ts';
import { ibansOfUser } from '../../sandbox/platform-backend/index.ts';
import { paymentOrder } from '../gateway/helpers.ts';
import { consoleExtension, type ConsoleExtension } from '../../engine/console/index.ts';
import type { ExchangeRecord } from '../../engine/console/recorder.ts';

const FX = { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' };

describe('console API on a sandbox engine', () => {
  let engine: RunningEngine;
  let con: ConsoleExtension;
  let gateway: GatewayExtension;
  const exporter = new InMemorySpanExporter();

  const get = async (path: string) => {
    const res = await fetch(engine.url + path);
    return { status: res.status, body: (await res.json()) as any };
  };
  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(engine.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const fx = (correlationId: string, body: unknown = FX) =>
    fetch(`${engine.url}/foreign-exchange/exchange-rates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': correlationId },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    const list: EngineExtension[] = [];
    con = consoleExtension(() => list);
    gateway = gatewayExtension({ audit: false });
    list.push(sandboxExtension(), gateway, con);
    engine = await startEngine({
      routes: ['routes'],
      env: 'sandbox',
      port: 0,
      logger: createLogger('silent'),
      shutdownTimeoutMs: 2000,
      extensions: list,
      tracing: { exporter },
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('records an FX exchange from its spans: the spans an exporter gets, with the vendor call and bodies', async () => {
    const id = `api-${randomUUID()}`;
    expect((await fx(id)).status).toBe(200);
    const { status, body } = await get(`/console/api/exchanges/${id}`);
    expect(status).toBe(200);
    const x = body as ExchangeRecord;
    expect(x).toMatchObject({
      route: 'get-exchange-rate',
      correlationId: id,
      outcome: 'ok',
      status: 200,
      calls: 1,
      retries: 0,
    });
    // one model: every span the console shows is a span the exporter was given, same ids
    const exported = new Set(
      exporter
        .getFinishedSpans()
        .filter((s) => s.spanContext().traceId === x.traceId)
        .map((s) => s.spanContext().spanId),
    );
    expect(new Set(x.spans.map((s) => s.id))).toEqual(exported);
    expect(x.spans.map((s) => `${s.role} ${s.name}`)).toEqual([
      'exchange POST /foreign-exchange/exchange-rates',
      'step validate',
      'step to-http',
      'call GET hubvendor-forex',
      'step transform',
    ]);
    const call = x.spans.find((s) => s.role === 'call')!;
    const request = call.events.find((e) => e.name === 'request')!.attributes;
    expect(request['url.path']).toBe('/v1/forex/exchange-rates/EUR/USD/1/BUY?currencyMarket=1');
    expect(call.events.find((e) => e.name === 'answer')!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'engine.body': expect.stringContaining('"middleRate"'),
    });
    const transform = x.spans.find((s) => s.name === 'transform')!;
    expect(
      JSON.parse(String(transform.events.find((e) => e.name === 'produced')!.attributes['engine.body'])),
    ).toMatchObject({ buyCurrency: 'EUR', sellCurrency: 'USD' });
  });

  it('masks secrets in recorded bodies as logs do: by field name and by shape', async () => {
    const id = `mask-${randomUUID()}`;
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    await fx(id, { ...FX, password: 'hunter2-hunter2', note: `Bearer ${jwt}` });
    const text = JSON.stringify((await get(`/console/api/exchanges/${id}`)).body);
    expect(text).not.toContain('hunter2-hunter2');
    expect(text).not.toContain(jwt);
    expect(text).toContain('hunt****');
    // the exporter got the same masked events: nothing unmasked left the process either
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.events))).not.toContain('hunter2-hunter2');
  });

  it("records the vars a step leaves beside its body: bank-directory's set step", async () => {
    const id = `vars-${randomUUID()}`;
    const res = await fetch(`${engine.url}/payments/bank-directory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': id },
      body: JSON.stringify({ identificationType: 'BIC', identification: 'deut-deff xxx' }),
    });
    expect(res.status).toBe(200);
    const x = (await get(`/console/api/exchanges/${id}`)).body as ExchangeRecord;
    const set = x.spans.find((s) => s.role === 'step' && s.name === 'set')!;
    const produced = set.events.find((e) => e.name === 'produced')!.attributes;
    expect(JSON.parse(String(produced['engine.vars']))).toEqual({
      id: 'DEUTDEFFXXX',
      disablePagination: expect.any(Boolean),
    });
    // before any step set one, a step leaves no vars
    const validate = x.spans.find((s) => s.role === 'step' && s.name === 'validate')!;
    expect(validate.events.find((e) => e.name === 'produced')!.attributes['engine.vars']).toBeUndefined();
  });

  it('a fault on the hub makes the exchange show each attempt and the mapped GC027', async () => {
    expect(
      (
        await send('POST', '/console/api/panels/sandbox/faults', {
          sim: 'hubvendor',
          rule: { path: '^/v1/forex', status: 503, times: 4 },
        })
      ).status,
    ).toBe(201);
    const id = `fault-${randomUUID()}`;
    expect((await fx(id)).status).toBe(502);
    const x = (await get(`/console/api/exchanges/${id}`)).body as ExchangeRecord;
    expect(x).toMatchObject({ outcome: 'error', status: 502, errorCode: 'GC027', calls: 4, retries: 3 });
    const calls = x.spans.filter((s) => s.role === 'call');
    expect(calls.map((c) => c.attributes['http.request.resend_count'] ?? 0)).toEqual([0, 1, 2, 3]);
    const mapped = x.spans[0]!.events.find((e) => e.name === 'error.mapped')!.attributes;
    expect(mapped).toMatchObject({ 'from.kind': 'vendor', 'to.code': 'GC027', 'to.status': 502 });
  });

  it('streams each exchange over Server-Sent Events as it starts and ends', async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${engine.url}/console/api/stream`, { signal: ctrl.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const id = `sse-${randomUUID()}`;
    await fx(id);
    let text = '';
    const dec = new TextDecoder();
    while (!text.includes(`"correlationId":"${id}"`)) text += dec.decode((await reader.read()).value);
    ctrl.abort();
    const frames = text.split('\n\n').filter((f) => f.startsWith('event: exchange'));
    const mine = frames.map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6))).filter((e) => e.correlationId === id);
    expect(mine[0]).toMatchObject({ route: 'get-exchange-rate', outcome: 'ok', calls: 1 });
  });

  it('a stream the client closed is let go: 60 streams opened and closed in turn, then one more is served', async () => {
    // the console serves at most 50 at once: closed ones must not count
    for (let i = 0; i < 61; i++) {
      const ctrl = new AbortController();
      const res = await fetch(`${engine.url}/console/api/stream`, { signal: ctrl.signal });
      expect(res.status, `stream ${i + 1}`).toBe(200);
      await res.body!.getReader().read(); // the `connected` comment: the server holds the stream
      ctrl.abort();
      await new Promise((r) => setTimeout(r, 5));
    }
  });

  it('lists exchanges by route and status, newest first', async () => {
    const { body } = await get('/console/api/exchanges?route=get-exchange-rate&status=error');
    expect(body.exchanges.length).toBeGreaterThan(0);
    expect(body.exchanges.every((e: any) => e.route === 'get-exchange-rate' && e.outcome === 'error')).toBe(true);
    const all = (await get('/console/api/exchanges?route=get-exchange-rate')).body.exchanges;
    expect(all.map((e: any) => e.startedAt)).toEqual([...all.map((e: any) => e.startedAt)].sort((a, b) => b - a));
  });

  it('refuses bad input with a 400 naming the field, and unknown things with a 404', async () => {
    expect((await get('/console/api/exchanges?limit=abc')).body.detail).toContain("'limit'");
    expect((await get('/console/api/exchanges?status=maybe')).status).toBe(400);
    expect((await get('/console/api/exchanges/no-such-exchange')).status).toBe(404);
    expect((await get('/console/api/nope')).status).toBe(404);
    const noKey = await send('POST', '/console/api/gateway/try', { tool: 'getExchangeRate', arguments: {} });
    expect([noKey.status, noKey.body.detail]).toEqual([400, "'key' is required: a subscription key"]);
    const badRule = await send('POST', '/console/api/panels/sandbox/faults', {
      sim: 'hubvendor',
      rule: { status: 42 },
    });
    expect([badRule.status, badRule.body.error]).toEqual([400, 'rule: status must be an integer between 100 and 599']);
    expect((await send('POST', '/console/api/panels/sandbox/faults', { sim: 'nosuch', rule: {} })).body.error).toMatch(
      /^'sim' must be one of /,
    );
    expect((await send('POST', '/console/api/panels/sandbox/triggers/ach-status', {})).body.error).toContain(
      "'batchId'",
    );
    const notJson = await fetch(`${engine.url}/console/api/gateway/try`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect([notJson.status, (await notJson.json()).detail]).toEqual([400, 'the body is not valid JSON']);
  });

  it('takes changes from its own page only: another origin is refused, and so is a body that is not JSON', async () => {
    const rule = JSON.stringify({ sim: 'hubvendor', rule: { path: '^/never$', status: 500 } });
    const other = await fetch(`${engine.url}/console/api/panels/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: rule,
    });
    expect([other.status, (await other.json()).detail]).toEqual([
      403,
      "Origin 'http://evil.example' is not this console's",
    ]);
    // what a cross-site form or no-cors fetch can send without a preflight
    const plain = await fetch(`${engine.url}/console/api/panels/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: rule,
    });
    expect([plain.status, (await plain.json()).detail]).toEqual([415, "'content-type' must be application/json"]);
    const del = await fetch(`${engine.url}/console/api/panels/sandbox/faults?sim=hubvendor`, {
      method: 'DELETE',
      headers: { origin: 'http://evil.example' },
    });
    expect(del.status).toBe(403);
    expect(
      (await get('/console/api/panels/sandbox')).body.simulators
        .find((x: any) => x.name === 'hubvendor')
        .faults.some((f: any) => f.path === '^/never$'),
    ).toBe(false);
    // the page itself: same origin
    const own = await fetch(`${engine.url}/console/api/panels/sandbox/faults?sim=hubvendor`, {
      method: 'DELETE',
      headers: { origin: engine.url },
    });
    expect(own.status).toBe(204);
  });

  it('the routes API draws each route from its file, with placeholders resolved and secrets masked', async () => {
    const { body } = await get('/console/api/routes');
    const fxRoute = body.routes.find((r: any) => r.id === 'get-exchange-rate');
    expect(fxRoute.tools).toEqual(['getExchangeRate']);
    expect(fxRoute.graph.steps.map((s: any) => s.kind)).toEqual(['validate', 'to-http', 'transform']);
    // {{hubvendor.forex.exchangeRates.apiUri}} as this environment resolves it
    expect(fxRoute.graph.steps[1]).toMatchObject({
      label: expect.stringMatching(/^GET \/v1\/forex\/exchange-rates\/\{buyCurrency\}\//),
      target: { kind: 'vendor', name: 'hubvendor-forex' },
    });
    // the two instances of one route template, each drawn with its own parameters
    for (const direction of ['credit', 'debit']) {
      const submit = body.routes.find((r: any) => r.id === `submit-${direction}-batch`);
      expect(submit.source.label).toBe(`POST /batch-payments/${direction}-batches`);
      const call = submit.graph.steps.find((s: any) => s.kind === 'to-http');
      expect(call).toMatchObject({
        label: `POST /fasterpayments/v1/masspayment/submit${direction}batch`,
        target: { kind: 'vendor', name: `achvendor-submit-${direction}-batch` },
      });
      expect(submit.graph.steps.find((s: any) => s.kind === 'to-direct').target).toEqual({
        kind: 'route',
        name: 'achvendor-validate-batch',
      });
    }
    const ach = body.routes.find((r: any) => r.valuesName === 'batch-payments-v0');
    const key = ach.values.find((v: any) => v.key.includes('client_key') || v.key.includes('client-key'));
    expect(key.value).toMatch(/^\S{0,4}\*{4}$/);
    expect(JSON.stringify(body)).not.toContain('sandbox-achvendor-client-key');
  });

  it('serves the source of the files the diagrams open, and of no other file', async () => {
    const { body } = await get('/console/api/routes');
    const bd = body.routes.find((r: any) => r.id === 'bank-directory').graph;
    expect(bd.source).toMatchObject({ file: 'routes/hubvendor-payment/bank-directory.yaml', line: 10 });
    const set = bd.steps[1];
    expect(set).toMatchObject({
      kind: 'set',
      source: { file: 'routes/hubvendor-payment/bank-directory.yaml', line: 22 },
    });
    expect(bd.steps[3].source).toEqual({ file: 'routes/hubvendor-payment/bank-directory-response.jsonata', line: 1 });
    const yaml = await get(`/console/api/source?file=${encodeURIComponent(set.source.file)}`);
    expect(yaml.status).toBe(200);
    expect(yaml.body.text.split('\n')[21]).toBe('  - set:');
    for (const file of ['values/environments/sandbox.yaml', '../../etc/passwd', 'routes/../package.json', '']) {
      const r = await get(`/console/api/source?file=${encodeURIComponent(file)}`);
      expect(r.status, file).toBe(404);
      expect(r.body.detail).toMatch(/^'file' must be a file of a loaded route/);
    }
  });

  it("marks the sandbox's demo traffic, and what continues its trace, with the origin the sandbox declares", async () => {
    const overview = (await get('/console/api/overview')).body;
    expect(overview.origins).toEqual([{ origin: 'demo', label: 'demo traffic' }]);
    const r = await engine.call('sandbox-demo-payments', {});
    expect(r.status).toBe(200);
    const demo = (await get('/console/api/exchanges?route=sandbox-demo-payments')).body.exchanges[0];
    expect(demo).toMatchObject({ route: 'sandbox-demo-payments', origin: 'demo' });
    // the hub's status messages of the demo payment continue its trace over AMQP: marked too
    await expect
      .poll(
        async () =>
          (await get('/console/api/exchanges?route=payment-status-inbound')).body.exchanges.find(
            (x: any) => x.traceId === demo.traceId,
          )?.origin,
        { timeout: 10_000 },
      )
      .toBe('demo');
    // a client's exchange is not
    const id = `origin-${randomUUID()}`;
    await fx(id);
    expect((await get(`/console/api/exchanges/${id}`)).body.origin).toBeUndefined();
  });

  it('offers the try-it form the keys the sandbox publishes', async () => {
    expect((await get('/console/api/gateway')).body.tryKeys).toEqual([
      { label: 'sandbox demo key (every tool)', key: 'sandbox-demo-subscription-key' },
      { label: 'sandbox FX-only key', key: 'sandbox-fx-only-subscription-key' },
    ]);
  });

  it('the routes API says what each route inherits, as engine routes --explain does, configured secrets masked', async () => {
    const { body } = await get('/console/api/routes');
    const fxRoute = body.routes.find((r: any) => r.id === 'get-exchange-rate');
    expect(fxRoute.inherits).toMatchObject({
      id: 'get-exchange-rate',
      values: {
        name: 'foreign-exchange-v1',
        file: 'values/foreign-exchange-v1.values.yaml',
        from: 'routes/hubvendor-foreign-exchange/connector.yaml',
      },
      onException: {
        from: 'routes/hubvendor-foreign-exchange/connector.yaml',
        handlers: [
          {
            when: 'kind: vendor, timeout, connection',
            template: expect.stringMatching(/transform-hubvendor-error-details\.json$/),
          },
        ],
      },
    });
    const hub = fxRoute.inherits.clients.find((c: any) => c.name === 'hubvendor');
    expect(hub.extends.map((e: any) => `${e.name} ${e.file}`)).toEqual([
      'hubvendor routes/connector.yaml',
      'seed-http routes/connector.yaml',
    ]);
    // the retry count: written in the template, its number from the connector's values file
    const retries = hub.sources.find((x: any) => x.setting === 'retry.max-retries');
    expect(retries).toMatchObject({
      value: '3',
      profile: 'seed-http',
      at: expect.stringMatching(/^routes\/connector\.yaml:\d+$/),
      properties: [
        {
          key: 'maximumRedeliveries',
          at: expect.stringMatching(/^values\/foreign-exchange-v1\.values\.yaml:\d+$/),
          origin: 'values',
        },
      ],
    });
    // the ACH client's key header: a configured secret (sandbox environment), masked in the settings and its row
    const ach = body.routes
      .find((r: any) => r.id === 'submit-credit-batch')
      .inherits.clients.find((c: any) => c.name === 'achvendor');
    expect(ach.settings['static-headers'].client_key).toMatch(/^\S{0,4}\*{4}$/);
    expect(ach.sources.find((x: any) => x.setting === 'static-headers.client_key').value).toMatch(/^\S{0,4}\*{4}$/);
    const screening = body.routes
      .find((r: any) => r.id === 'customer-screening')
      .inherits.clients.find((c: any) => c.name === 'screenvendor');
    expect(screening.settings['static-headers']['X-API-Key']).toMatch(/\*{4}$/);
    const text = JSON.stringify(body);
    expect(text).not.toContain('sandbox-achvendor-client-key');
    expect(String(engine.values.find('screening-v2')!.get('screenvendor.apiKey'))).toBe('sandbox-screenvendor-api-key');
    expect(text).not.toContain('sandbox-screenvendor-api-key');
  });

  it('the sandbox panel masks credential headers of recorded requests and filters events', async () => {
    const token = 'secret-token-value-1234';
    await fetch(`${engine.simulators.sandbox.hubvendor}/v1/forex/exchange-rates/EUR/USD/1/BUY?currencyMarket=1`, {
      headers: { authorization: `Bearer ${token}`, 'x-api-key': 'api-key-value-5678' },
    });
    const recorded = JSON.stringify((await get('/console/api/panels/sandbox/requests?sim=hubvendor')).body);
    expect(recorded).toContain('Bearer secr****');
    expect(recorded).not.toContain(token);
    expect(recorded).not.toContain('api-key-value-5678');
    const { body } = await get('/console/api/panels/sandbox');
    expect(body.simulators.map((s: any) => s.name)).toEqual(
      expect.arrayContaining(['hubvendor', 'eventhub', 'screenvendor', 'achvendor', 'idp']),
    );
    // the gateway's token check fetched the identity provider's keys; the FX calls reached the hub
    const reqs = (await get('/console/api/panels/sandbox/requests?sim=hubvendor')).body.requests;
    expect(reqs.some((r: any) => r.method === 'GET' && r.path.startsWith('/v1/forex/'))).toBe(true);
    expect((await get('/console/api/panels/sandbox/requests?sim=nosuch')).status).toBe(400);
    const events = (await get('/console/api/panels/sandbox/events?type=no.such.type')).body.events;
    expect(events).toEqual([]);
  });

  describe("the try-it form's confirmation of a confirm: required tool", () => {
    const KEY = 'sandbox-demo-subscription-key';
    let token: string;
    beforeAll(async () => {
      token = (await send('POST', '/console/api/panels/sandbox/token', { sub: 'alice' })).body.token;
    });
    /** the hub's POSTs carrying this end-to-end reference (the demo payments carry DEMO-...) */
    const atHub = async (e2e: string) =>
      (await get('/console/api/panels/sandbox/requests?sim=hubvendor')).body.requests.filter(
        (r: any) => r.method === 'POST' && JSON.stringify(r.body ?? '').includes(e2e),
      ).length;
    const tryIt = (args: unknown, confirmation?: unknown) =>
      send('POST', '/console/api/gateway/try', {
        key: KEY,
        token,
        tool: 'initiatePaymentOrder',
        arguments: args,
        ...(confirmation ? { confirmation } : {}),
      });
    /** the first call: the confirmation asked, in 2026-07-28, nothing at the hub */
    const ask = async (args: ReturnType<typeof paymentOrder>) => {
      const first = await tryIt(args);
      expect(first.status).toBe(200);
      expect(first.body.steps.map((x: any) => x.method)).toEqual(['tools/call']);
      const step = first.body.steps[0];
      expect(step.request.headers).toMatchObject({
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'initiatePaymentOrder',
      });
      expect(step.request.body.params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({
        elicitation: { form: {} },
      });
      expect(step.response.body.result.resultType).toBe('input_required');
      // shown masked (it looks like a JWT), given whole beside it for the answer to echo
      expect(step.response.body.result.requestState).toMatch(/^\S{0,4}\*{4}$/);
      expect(step.requestState).toMatch(/^[\w-]+\.[\w-]+$/);
      expect(await atHub(args.transferTransactionInformation.endToEndIdentification)).toBe(0);
      return { ...step.response.body.result, requestState: step.requestState as string };
    };

    it('asks first (amount, masked accounts, date); Confirm makes the payment once; the same answer again is refused', async () => {
      const args = paymentOrder('TRY-CONFIRM', '10.00', '2030-01-15');
      const e2e = args.transferTransactionInformation.endToEndIdentification;
      const asked = await ask(args);
      const message: string = asked.inputRequests.confirm.params.message;
      const debtor = ibansOfUser('alice')[0]!;
      expect(message.split('\n')).toEqual([
        'Confirm: Initiate a payment',
        'Amount: 10.00 EUR',
        `From account: ${debtor.slice(0, 4)}****${debtor.slice(-4)}`,
        'To: Jane Doe, FR14****2606',
        'Execution date: 2030-01-15',
      ]);

      const confirmed = await tryIt(args, { requestState: asked.requestState, decision: 'confirm' });
      expect(confirmed.status).toBe(200);
      const step = confirmed.body.steps[0];
      expect(step.request.body.params).toMatchObject({
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        requestState: asked.requestState,
      });
      expect(step.response.body.result).toMatchObject({ resultType: 'complete', isError: false });
      expect(step.response.body.result.structuredContent.bankReferenceId).toMatch(/^PO/);
      expect(await atHub(e2e)).toBe(1);

      // a confirmation is used once: the same answer again does nothing
      const again = await tryIt(args, { requestState: asked.requestState, decision: 'confirm' });
      expect(again.body.steps[0].response.body.result.isError).toBe(true);
      expect(again.body.steps[0].response.body.result.structuredContent.detail).toContain('used already');
      expect(await atHub(e2e)).toBe(1);
    });

    it('Refuse answers the refusal; nothing reaches the hub', async () => {
      const args = paymentOrder('TRY-REFUSE', '11.00', '2030-01-16');
      const asked = await ask(args);
      const refused = await tryIt(args, { requestState: asked.requestState, decision: 'refuse' });
      const step = refused.body.steps[0];
      expect(step.request.body.params.inputResponses).toEqual({ confirm: { action: 'decline' } });
      expect(step.response.body.result.isError).toBe(true);
      expect(step.response.body.result.structuredContent).toMatchObject({
        title: 'Confirmation refused',
        status: 403,
        detail: expect.stringContaining('The user did not confirm (decline)'),
      });
      expect(await atHub(args.transferTransactionInformation.endToEndIdentification)).toBe(0);
    });

    it('refuses a confirmation for a tool that asks none, and a decision that is neither confirm nor refuse', async () => {
      const fxTry = await send('POST', '/console/api/gateway/try', {
        key: KEY,
        tool: 'getExchangeRate',
        arguments: FX,
        confirmation: { requestState: 'x.y', decision: 'confirm' },
      });
      expect([fxTry.status, fxTry.body.detail]).toEqual([
        400,
        "'confirmation' answers a confirmation the gateway asked for; tool 'getExchangeRate' asks for none",
      ]);
      const maybe = await tryIt({}, { requestState: 'x.y', decision: 'maybe' });
      expect([maybe.status, maybe.body.detail]).toEqual([400, "'confirmation.decision' must be confirm or refuse"]);
      // the gateway's page lists which tools ask
      const tools = (await get('/console/api/gateway')).body.tools;
      expect(tools.filter((t: any) => t.confirm).map((t: any) => t.name)).toEqual([
        'initiatePaymentOrder',
        'modifyPaymentOrder',
        'cancelPayment',
        'submitAchCreditBatch',
      ]);
    });

    it('mirrors x-mcp-header arguments as the gateway checks them in 2026-07-28 (Base64 where not plain ASCII)', async () => {
      const fx = gateway.tools.find((t) => t.name === 'getExchangeRate')!;
      expect(fx.paramHeaders.length).toBe(2);
      const as26 = { confirm: true, paramHeaders: fx.paramHeaders };
      const [ok] = await tryTool(engine.url, { key: KEY, tool: 'getExchangeRate', arguments: FX }, as26);
      expect(ok!.request.headers).toMatchObject({ 'mcp-param-buycurrency': 'EUR', 'mcp-param-sellcurrency': 'USD' });
      expect(ok!.response.body).toMatchObject({ result: { resultType: 'complete', isError: false } });
      // not a currency, but the header agrees with the body: the route refuses it, not the gateway (-32020)
      const odd = { ...FX, sellCurrency: 'ÜSD ' };
      const [bad] = await tryTool(engine.url, { key: KEY, tool: 'getExchangeRate', arguments: odd }, as26);
      expect(bad!.request.headers['mcp-param-sellcurrency']).toBe(
        `=?base64?${Buffer.from('ÜSD ').toString('base64')}?=`,
      );
      expect(bad!.response.status).toBe(200);
      expect((bad!.response.body as any).result).toMatchObject({ isError: true, structuredContent: { code: 'GC025' } });
    });
  });
});
