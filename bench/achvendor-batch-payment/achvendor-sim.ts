// The ACH vendor simulator in its own process for the batch benchmark (no webhooks, batches stay
// RECEIVED); prints its URL as the first line of stdout.
import { startAchvendor } from '../../sandbox/achvendor/index.ts';

const sim = await startAchvendor({ record: false, webhookBaseUrl: null, stepDelayMs: null });
process.stdout.write(sim.url + '\n');
process.on('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
