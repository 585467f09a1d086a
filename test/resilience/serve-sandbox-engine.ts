// Child process of sandbox-engine-process.ts: the engine on the embedded sandbox with the route
// folders given as arguments, logging nothing, values set from ENGINE_SET (JSON, as --set takes
// them); prints `READY {url, sandbox urls}` on stderr.

import { startEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { sandboxExtension } from '../../sandbox/extension.ts';
import type { Sandbox } from '../../sandbox/index.ts';

const sandbox = sandboxExtension();
const engine = await startEngine({
  routes: process.argv.slice(2),
  env: 'sandbox',
  port: 0,
  logger: createLogger('silent'),
  outbox: false,
  set: JSON.parse(process.env.ENGINE_SET ?? '{}') as Record<string, string>,
  extensions: [sandbox],
});
const urls = (sandbox.sandbox as Sandbox).urls;
process.stderr.write(`READY ${JSON.stringify({ url: engine.url, sandbox: urls })}\n`);
