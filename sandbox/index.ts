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

    const hubvendor = await startHubvendor({ log: simLog('hubvendor'), record: opts.record });
    closers.push(() => hubvendor.close());
    urls.hubvendor = hubvendor.url;
    services.hubvendor = hubvendor;

    // [sandbox:payment-inbound] embedded AMQP 1.0 endpoint
    // [sandbox:gateway] identity provider and platform backend
    // [sandbox:screening] screenvendor simulator
    // [sandbox:batch] achvendor simulator

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
