// The hubvendor simulator in its own process for the gateway benchmark (request recording off);
// prints its URL. A separate file from bench/lib/sim-process.ts so that other benchmarks running on
// the same machine never mistake it for theirs.
import { startHubvendor } from '../../sandbox/hubvendor/index.ts';

const hub = await startHubvendor({ record: false, processingDelayMs: null });
process.stdout.write(hub.url + '\n');
process.on('SIGTERM', () => {
  void hub.close().then(() => process.exit(0));
});
