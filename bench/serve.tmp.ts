import { startEngine } from '../engine/engine.ts';
import { createLogger } from '../engine/runtime/logger.ts';
const e = await startEngine({ routes: [process.argv[3] ?? 'routes/hubvendor-foreign-exchange'], port: 0, logger: createLogger('warn'), set: { 'hubvendor-base-url': process.argv[2] } });
console.log(e.url);
process.on('SIGTERM', () => { void e.close().then(() => process.exit(0)); });
