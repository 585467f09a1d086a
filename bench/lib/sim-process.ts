// Runs the hubvendor simulator in its own process (request recording off) for benchmarks;
// prints its URL as the first line of stdout.
import { startHubvendor } from '../../sandbox/hubvendor/index.ts';

const hub = await startHubvendor({ record: false, processingDelayMs: null });
process.stdout.write(hub.url + '\n');
process.on('SIGTERM', () => {
  void hub.close().then(() => process.exit(0));
});
