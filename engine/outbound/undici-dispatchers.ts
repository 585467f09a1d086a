// undici's Agent and EnvHttpProxyAgent without the rest of the package: undici's index also loads
// fetch, WebSocket, caches and mocks, which the engine never uses; importing it made a one-route
// engine's idle memory about 15 MiB larger (docs/benchmarks.md, Start-up). The one thing the index does
// for dispatchers is done here too: it adds the request API (request, stream, connect, ...) to
// Dispatcher, which the proxy agent uses. The paths belong to the version the lock file pins
// (test/unit/undici-dispatchers.test.ts: they are the package's own classes).

import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

Object.assign(Dispatcher.prototype, api);

export { Agent, EnvHttpProxyAgent };
