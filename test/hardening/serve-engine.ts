// Child process of engine-process.ts: starts the engine on ROOT with environment ENV and prints
// `READY <url>` on stderr.

import { startEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';

const [root, env] = process.argv.slice(2);
const engine = await startEngine({ routes: ['routes'], root, env, port: 0, logger: createLogger('warn') });
process.stderr.write(`READY ${engine.url}\n`);
