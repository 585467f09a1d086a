// What `engine dry-run` checks in a loaded project, and the checks run: each client profile the
// routes name (HTTP vendors and event hub producers: DNS, TCP, TLS), each AMQP broker a route
// consumes from (the same, then the login; a client with `proxy: true` through the environment's
// proxy: proxy.ts), the durable store, and the gateway's key set when
// its JWT settings name one. Endpoints shared by several clients are checked once per client, so
// each line names the client an operator must fix.

import { resolve } from 'node:path';
import type { OpenedEngine } from '../../engine.ts';
import { routeInheritance } from '../../dsl/route-inheritance.ts';
import { effectiveDurableSettings } from '../../store/durable-for.ts';
import { parseAmqpUrl } from '../../amqp/rhea-util.ts';
import { readSettings } from '../../gateway/config.ts';
import { timed, type CheckResult } from './check.ts';
import { checkEndpoint, endpointOf, hostPort } from './net.ts';
import { checkThroughProxy, proxyFor } from './proxy.ts';
import { amqpLogin, type AmqpLogin } from './amqp-login.ts';
import { checkStore, storeTarget } from './store.ts';
import { checkJwks, jwksSource } from './jwks.ts';

interface ClientTarget {
  name: string;
  url: string;
  /** `proxy: true`: calls go through the environment's proxy */
  proxy: boolean;
}

/** The client profiles the routes name, each once (by name and base-url), in route order. */
function clientTargets(engine: OpenedEngine): ClientTarget[] {
  const seen = new Map<string, ClientTarget>();
  for (const route of engine.routes) {
    for (const c of routeInheritance(route, engine.values, resolve('.')).clients) {
      const settings = c.settings as Record<string, unknown> | undefined;
      const url = settings?.['base-url'];
      if (typeof url !== 'string') continue;
      seen.set(`${c.name}\0${url}`, {
        name: c.name,
        url,
        proxy: settings?.proxy === true || settings?.proxy === 'true',
      });
    }
  }
  return [...seen.values()];
}

/** The brokers the `from: amqp` routes log in to, each once per address and user. */
function amqpTargets(engine: OpenedEngine): (AmqpLogin & { name: string })[] {
  const out = new Map<string, AmqpLogin & { name: string }>();
  for (const route of engine.routes) {
    if (route.source.kind !== 'amqp') continue;
    const c = route.source.compiled as { url: string; address?: ReturnType<typeof parseAmqpUrl> } & AmqpLogin;
    const address = c.address ?? parseAmqpUrl(c.url);
    const key = `${address.host}:${address.port}\0${c.username ?? ''}\0${c.credentials}`;
    if (!out.has(key))
      out.set(key, {
        name: route.id,
        address,
        username: c.username,
        // a non-enumerable field of the compiled source (never printed)
        password: c.password,
        credentials: c.credentials,
      });
  }
  return [...out.values()];
}

/** `gateway`: the gateway serves tools in this project (its JWT settings are then read and checked). */
export async function runChecks(engine: OpenedEngine, gateway: boolean): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const c of clientTargets(engine)) {
    const e = endpointOf(c.url);
    if (!e) {
      results.push({ status: 'FAIL', check: 'url', name: c.name, target: '-', ms: 0, reason: 'base-url is not a URL' });
      continue;
    }
    const proxy = c.proxy ? proxyFor(c.url) : undefined;
    results.push(...(await (proxy ? checkThroughProxy(c.name, proxy, e) : checkEndpoint(c.name, e))));
  }
  for (const a of amqpTargets(engine)) {
    const e = { host: a.address.host, port: a.address.port, tls: a.address.tls };
    const net = await checkEndpoint(a.name, e);
    results.push(...net);
    if (net.some((r) => r.status === 'FAIL')) continue;
    results.push(await timed('amqp-login', a.name, hostPort(e), () => amqpLogin(a)));
  }
  const store = effectiveDurableSettings(engine.services.settings?.store, engine.services.root);
  results.push(await timed('store', store.kind, storeTarget(store), () => checkStore(store)));
  if (gateway) {
    const jwt = readSettings(engine.values).jwt;
    const from = jwksSource(jwt);
    if (from) {
      const e = endpointOf(from);
      results.push(await timed('jwks', 'gateway', e ? hostPort(e) : from, () => checkJwks(jwt)));
    }
  }
  return results;
}
