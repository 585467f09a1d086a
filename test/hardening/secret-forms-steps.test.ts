// The fail and log steps, and any log line, mask every form of the configured secrets (issue 24,
// finding 9): a route quoting vendor text that holds the key upper-cased, Base64- or URL-encoded
// puts none of these forms into its problem detail or its log lines. The engine registers the
// configured secrets with its logger at load and at each reload: a log line that names the key
// itself (here a log step's message, through a placeholder) is masked too.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { leakedForms, middleOf } from '../helpers/leaked-forms.ts';

const KEY = 'Demo Client/Key+2026&x=7';
const route = (id: string, steps: string) => `id: ${id}
values: demo
from:
  direct: {}
steps:
${steps}`;

let engine: RunningEngine;
const lines: string[] = [];

beforeAll(async () => {
  const root = tmpProject({
    'values/demo.values.yaml': 'connector: demo\ndemo:\n  key: ${demo-client-key}\n',
    'routes/fail.yaml': route(
      'fail',
      `  - fail:
      kind: vendor
      detail: "'vendor said: ' & body.msg"
`,
    ),
    'routes/log.yaml': route(
      'log',
      `  - log:
      level: warn
      message: "vendor answer for key {{demo.key}}"
      fields: "{ 'vendorMessage': body.msg }"
`,
    ),
  });
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  engine = await startEngine({
    routes: ['routes'],
    root,
    logger: createLogger('info', sink),
    simulated: false,
    port: 0,
    processEnv: { DEMO_CLIENT_KEY: KEY },
  });
});
afterAll(() => engine?.close());

describe.each(leakedForms(KEY))('%s', (_name, form) => {
  it('fail: the problem detail holds only the masked form', async () => {
    const e = await engine.call('fail', { body: { msg: `key ${form} refused` } }).then(
      () => undefined,
      (err) => err,
    );
    expect(e.detail).toMatch(/^vendor said: key .{0,20}\*{4}\S* refused$/);
    expect(e.detail).not.toContain(middleOf(form));
  });

  it('log: the fields and the message hold only masked forms', async () => {
    lines.length = 0;
    await engine.call('log', { body: { msg: `key ${form} refused` } });
    const line = JSON.parse(lines.find((l) => l.includes('vendor answer'))!);
    expect(line.vendorMessage).toMatch(/^key .{0,20}\*{4}\S* refused$/);
    expect(line.msg).toBe('vendor answer for key Demo****');
    expect(lines.join('')).not.toContain(form);
    expect(lines.join('')).not.toContain(middleOf(form));
  });
});

describe('a reload with a new secret value', () => {
  it('the logger masks the new value in every form from then on', async () => {
    const root = tmpProject({
      'values/demo.values.yaml': 'connector: demo\ndemo:\n  key: ${demo-client-key}\n',
      'secrets/demo-client-key': 'First Key/value-1\n',
      'routes/log.yaml': route(
        'log',
        `  - log:
      message: "vendor answer"
      fields: "{ 'vendorMessage': body.msg }"
`,
      ),
    });
    const out: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        out.push(String(chunk));
        done();
      },
    });
    const e = await startEngine({
      routes: ['routes'],
      root,
      secretsDir: join(root, 'secrets'),
      logger: createLogger('info', sink),
      simulated: false,
      port: 0,
      processEnv: {},
    });
    try {
      const next = 'Second Key/value-2';
      writeFileSync(join(root, 'secrets/demo-client-key'), `${next}\n`);
      expect((await e.reload('test')).ok).toBe(true);
      for (const [, form] of leakedForms(next)) {
        e.services.logger.warn(`the vendor echoed ${form}`);
        await e.call('log', { body: { msg: form } });
      }
      const text = out.join('');
      for (const [, form] of leakedForms(next)) expect(text).not.toContain(form);
      expect(text).toContain('the vendor echoed Seco****');
    } finally {
      await e.close();
    }
  });
});
