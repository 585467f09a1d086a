// End to end (issue 24, finding 9): the ACH vendor echoes the connector's client key in its
// error body, upper-cased, Base64-encoded, inside `Basic base64(id:key)`, URL-encoded or in hex.
// The answer (problem detail, vendorError), the engine's log lines and the console's recorded
// exchange (the spans' masked bodies and error events) hold none of these forms, only `abcd****`.
// Over real sockets, on the sandbox's ACH simulator with a fault answering the submission.

import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { consoleExtension, type ConsoleExtension } from '../../engine/console/index.ts';
import { batch } from '../achvendor-batch-payment/fixtures.ts';
import { leakedForms, middleOf } from '../helpers/leaked-forms.ts';
import type { Achvendor } from '../../sandbox/achvendor/index.ts';

// a space, `/`, `+`, `&` and `=`: its URL-encoded forms differ from it; capitals: so do its cased ones
const KEY = 'Ach Client/Key+2026&x=7';

let engine: TestEngine;
let ach: Achvendor;
let con: ConsoleExtension;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  con = consoleExtension(() => []);
  engine = await startTestEngine({
    routes: ['routes/achvendor-batch-payment'],
    logger: createLogger('info', sink),
    set: { 'achvendor-client-key': KEY },
    extensions: [con],
  });
  ach = engine.sandbox.services.achvendor as Achvendor;
  ach.setStepDelay(null);
  ach.setWebhookBaseUrl(null);
}, 60_000);
afterAll(async () => {
  await engine?.close();
});
afterEach(() => {
  ach.server.clearFaults();
  lines.length = 0;
});

describe('the ACH vendor echoing the client key in an error body', () => {
  it.each(leakedForms(KEY))('%s: not in the answer, the log or the recorded exchange', async (_name, form) => {
    ach.server.addFault({
      path: 'submitcreditbatch$',
      status: 401,
      times: 1,
      body: { code: 'RSK-10-1002', message: `Invalid header client key ${form}`, target: `header.client_key=${form}` },
    });
    const id = `forms-${randomUUID()}`;
    const r = await engine.request('POST', '/batch-payments/credit-batches', batch(), { 'x-correlation-id': id });
    expect(r.status).toBe(401);
    // the vendor's message reached the answer, masked
    expect(r.body.vendorError.message).toMatch(/^Invalid header client key .{0,20}\*{4}/);
    const answer = JSON.stringify(r.body);
    const logged = lines.join('\n');
    const recorded = JSON.stringify(con.recorder!.get(id));
    expect(logged).toContain('"exchange failed"');
    expect(recorded).toContain('RSK-10-1002');
    for (const out of [answer, logged, recorded]) {
      expect(out).not.toContain(form);
      expect(out).not.toContain(middleOf(form));
      expect(out).toContain('****');
    }
  });
});
