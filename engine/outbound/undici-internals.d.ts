// Types of the undici files undici-dispatchers.ts imports by path: what the package exports them as.

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}

declare module 'undici/lib/api/index.js' {
  const api: Record<'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect', (...args: never[]) => unknown>;
  export default api;
}

declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}

declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}
