// The embedded sandbox: every vendor simulator, the event hub sink and the identity provider,
// real HTTP servers on 127.0.0.1 started in-process by `engine run --env sandbox`. Each service
// is reachable from values as `simulator:<name>` (values/environments/sandbox.yaml).

import type { Logger } from 'pino';
import { startHubvendor, type Hubvendor } from './hubvendor/index.ts';
import { startEventHub, type EventHub } from './eventhub/index.ts';
import { SIMULATORS } from './simulators.ts';

export interface SandboxOptions {
  logger: Logger;
  /** record requests on the simulators (tests read them; benchmarks turn it off) */
  record?: boolean;
}

export interface Sandbox {
  urls: Record<string, string>;
  hubvendor: Hubvendor;
  eventhub: EventHub;
  /** more simulators register here as their connectors land */
  services: Record<string, unknown>;
  close(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const closers: (() => Promise<void>)[] = [];
  const urls: Record<string, string> = {};
  const services: Record<string, unknown> = {};
  const simLog = (name: string) => (msg: string, obj?: object) => opts.logger.debug({ sim: name, ...obj }, msg);
  /** Records a started simulator: its URL, its service object and how to close it. */
  const started = <T extends { url: string; close(): Promise<void> }>(name: string, sim: T): T => {
    closers.push(() => sim.close());
    urls[name] = sim.url;
    services[name] = sim;
    return sim;
  };
  // The simulators are independent of each other (but for the AMQP endpoint the hubvendor publishes
  // to): they load and listen concurrently, so their module loading overlaps (start-up time).
  const starts: Promise<unknown>[] = [
    startEventHub({ log: simLog('eventhub'), record: opts.record }).then((s) => started('eventhub', s)),
    // [sandbox:payment-inbound] the embedded AMQP 1.0 endpoint starts before the hubvendor, which
    // publishes a payment status message to it on every payment order status change
    import('./amqp/index.ts').then(async ({ startAmqpEndpoint, paymentStatusPublisher }) => {
      const amqp = started('amqp', await startAmqpEndpoint({ log: simLog('amqp') }));
      started(
        'hubvendor',
        await startHubvendor({
          log: simLog('hubvendor'),
          record: opts.record,
          onPaymentStatus: paymentStatusPublisher(amqp),
        }),
      );
    }),
    // [sandbox:gateway] identity provider and platform backend
    import('./idp/index.ts').then(async ({ startIdp }) =>
      started('idp', await startIdp({ log: simLog('idp'), record: opts.record })),
    ),
    import('./platform-backend/index.ts').then(async ({ startPlatformBackend }) =>
      started('platform', await startPlatformBackend({ log: simLog('platform'), record: opts.record })),
    ),
    // [sandbox:screening] screenvendor simulator
    import('./screenvendor/index.ts').then(async ({ startScreenvendor }) =>
      started('screenvendor', await startScreenvendor({ log: simLog('screenvendor'), record: opts.record })),
    ),
    // [sandbox:batch] achvendor simulator; it sends webhooks once the engine listens (extension.ts)
    import('./achvendor/index.ts').then(async ({ startAchvendor }) =>
      started(
        'achvendor',
        await startAchvendor({ log: simLog('achvendor'), record: opts.record, webhookBaseUrl: null }),
      ),
    ),
  ];
  const failed = (await Promise.allSettled(starts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const c of closers.reverse()) await c().catch(() => {});
    throw failed.reason;
  }
  // in the order they always had (the log line, the console's Sandbox page), whichever listened first
  const ordered = Object.fromEntries(SIMULATORS.map((n) => [n, urls[n]]));
  opts.logger.info({ urls: ordered }, 'sandbox started');
  return {
    urls: ordered,
    hubvendor: services.hubvendor as Hubvendor,
    eventhub: services.eventhub as EventHub,
    services,
    close: async () => {
      for (const c of closers.reverse()) await c();
    },
  };
}
