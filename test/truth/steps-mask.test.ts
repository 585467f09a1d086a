// The fail and log steps mask what they relay: credential shapes and the configured secrets of
// the route's values file (the values of secret environmental keys, known at load time).

import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const SECRET = 'very-secret-key-123';
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
      message: vendor answer
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
    processEnv: { DEMO_CLIENT_KEY: SECRET },
  });
});
afterAll(() => engine?.close());

const msg = `key ${SECRET} refused for Bearer abcdefghijkl`;

describe('fail and log steps', () => {
  it('fail: the detail holds only masked forms', async () => {
    await expect(engine.call('fail', { body: { msg } })).rejects.toMatchObject({
      detail: 'vendor said: key very**** refused for Bearer abcd****',
    });
  });

  it('log: the fields hold only masked forms', async () => {
    lines.length = 0;
    await engine.call('log', { body: { msg } });
    const line = lines.find((l) => l.includes('vendor answer'))!;
    expect(JSON.parse(line).vendorMessage).toBe('key very**** refused for Bearer abcd****');
    expect(lines.join('')).not.toContain(SECRET);
  });
});
