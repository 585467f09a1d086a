// The embedded sandbox: every vendor simulator, the event hub sink and the identity provider,
// real HTTP servers on 127.0.0.1 started in-process by `engine run --env sandbox`. Each service
// is reachable from values as `sandbox:<name>` (values/environments/sandbox.yaml).

import type { Logger } from 'pino';
import { startHubvendor, type Hubvendor } from './hubvendor/index.ts';
import { startEventHub, type EventHub } from './eventhub/index.ts';

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
  try {
    const eventhub = await startEventHub({ log: simLog('eventhub'), record: opts.record });
    closers.push(() => eventhub.close());
    urls.eventhub = eventhub.url;
    services.eventhub = eventhub;

    // [sandbox:payment-inbound] the embedded AMQP 1.0 endpoint starts before the hubvendor, which
    // publishes a payment status message to it on every payment order status change
    const { startAmqpEndpoint, paymentStatusPublisher } = await import('./amqp/index.ts');
    const amqp = await startAmqpEndpoint({ log: simLog('amqp') });
    closers.push(() => amqp.close());
    urls.amqp = amqp.url;
    services.amqp = amqp;

    const hubvendor = await startHubvendor({ log: simLog('hubvendor'), record: opts.record, onPaymentStatus: paymentStatusPublisher(amqp) });
    closers.push(() => hubvendor.close());
    urls.hubvendor = hubvendor.url;
    services.hubvendor = hubvendor;

    // [sandbox:payment-inbound] embedded AMQP 1.0 endpoint: started above, before the hubvendor
    // [sandbox:gateway] identity provider and platform backend
    {
      const { startIdp } = await import('./idp/index.ts');
      const idp = await startIdp({ log: simLog('idp'), record: opts.record });
      closers.push(() => idp.close());
      urls.idp = idp.url;
      services.idp = idp;
      const { startPlatformBackend } = await import('./platform-backend/index.ts');
      const platform = await startPlatformBackend({ log: simLog('platform'), record: opts.record });
      closers.push(() => platform.close());
      urls.platform = platform.url;
      services.platform = platform;
    }
    // [sandbox:screening] screenvendor simulator
    {
      const { startScreenvendor } = await import('./screenvendor/index.ts');
      const screenvendor = await startScreenvendor({ log: simLog('screenvendor'), record: opts.record });
      closers.push(() => screenvendor.close());
      urls.screenvendor = screenvendor.url;
      services.screenvendor = screenvendor;
    }
    // [sandbox:batch] achvendor simulator; it sends webhooks once the engine listens (extension.ts)
    {
      const { startAchvendor } = await import('./achvendor/index.ts');
      const achvendor = await startAchvendor({ log: simLog('achvendor'), record: opts.record, webhookBaseUrl: null });
      closers.push(() => achvendor.close());
      urls.achvendor = achvendor.url;
      services.achvendor = achvendor;
    }

    opts.logger.info({ urls }, 'sandbox started');
    return {
      urls,
      hubvendor,
      eventhub,
      services,
      close: async () => { for (const c of closers.reverse()) await c(); },
    };
  } catch (e) {
    for (const c of closers.reverse()) await c().catch(() => {});
    throw e;
  }
}
