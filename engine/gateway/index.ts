// The agent tool gateway as an engine extension: loads `tools:` files from the route folders,
// checks them against the loaded routes and the approvals (lint), serves POST /mcp on the
// engine's listener (its metrics on the engine's /metrics), and adds the `engine keys` and
// `engine tools` commands. After a reload it serves the tools of the new load (their schemas,
// approvals and subscriptions); tool calls always reach the engine's current routes.

import type { Command } from 'commander';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CommandContext } from '../cli-extension.ts';
import type { GatewayExtension } from './extension.ts';
import type { RunningEngine } from '../engine.ts';
import type { DocumentHandler } from '../dsl/route-loader.ts';
import { DiagnosticError } from '../core/diagnostics.ts';
import { diagAt } from '../core/yaml-source.ts';
import type { ValuesSet } from '../config/values.ts';
import { readSettings, VALUES_NAME, type GatewaySettings } from './config.ts';
import { ToolCollector, readApprovals, approvalState, APPROVALS_FILE, type Tool } from './tools.ts';
import { TokenVerifier } from './jwt.ts';
import { MemoryLimiter, RedisLimiter, limiterRedis, type Limiter } from './rate-limit.ts';
import { CONFIRMATIONS_PATH, McpGateway, type GatewayRequest, type GatewayResponse } from './mcp.ts';
import { UrlConfirmations } from './url-confirmation.ts';
import { ConfirmPage } from './confirm-page.ts';
import { ClientIp } from './client-ip.ts';
import { GatewayTasks, taskMetrics } from './tasks.ts';
import { gatewayMetrics } from './metrics.ts';
import { mcpTelemetry } from './mcp-telemetry.ts';
import { registerGatewayCommands } from './commands.ts';
import { METADATA_PATH } from './oauth.ts';
import { Confirmations } from './confirmation.ts';
import { noteKeyUse, storeFor } from '../store/store-for.ts';
import { NO_AUDIT, type GatewayAudit } from './audit-hook.ts';
import { auditMetrics, DurableAudit } from './audit.ts';
import { durableStoreFor } from '../store/durable-for.ts';

export const MCP_PATH = '/mcp';
/** who remembers the confirmations' nonces, as the replica check names it (store/replica-check.ts) */
const CONFIRMATIONS_USER = "the gateway's confirmations";
const TASKS_USER = "the gateway's tasks";
/** What the gateway serves on the listener (EngineExtension.paths); cli/extensions.ts's stand-in says the same */
export const GATEWAY_PATHS = [MCP_PATH, METADATA_PATH];

export type { GatewayExtension };

export interface GatewayOptions {
  /**
   * false: no audit trail (tests that share one project folder: the trail would open its embedded
   * store); a GatewayAudit: decisions go to it (tests that read them); default: every decision
   * recorded in the engine's durable store (audit.ts)
   */
  audit?: boolean | GatewayAudit;
}

export function gatewayExtension(opts: GatewayOptions = {}): GatewayExtension {
  let collector: ToolCollector | undefined;
  let audit: GatewayAudit = NO_AUDIT;
  let valuesSet: ValuesSet | undefined;
  let running: GatewayExtension['running'];
  /** the names of the tools served now (the telemetry's labels take these only) */
  let servedNames = new Set<string>();

  const ext: GatewayExtension = {
    name: 'gateway',
    paths: GATEWAY_PATHS,
    get tools() {
      return collector?.tools ?? [];
    },
    get toolFiles() {
      return collector?.files ?? new Set<string>();
    },
    get running() {
      return running;
    },

    valuesFiles() {
      return collector?.loaded.length ? [`${VALUES_NAME}.values.yaml`, APPROVALS_FILE] : [];
    },

    documents({ values, services }) {
      collector = new ToolCollector(services.root);
      valuesSet = values;
      const c = collector;
      const handler: DocumentHandler = {
        key: 'tools',
        load: (src) => c.load(src),
        finish: (routes) => {
          if (!c.loaded.length) return [];
          const diags = c.finish(routes);
          // the settings, at lint and before a start or a reload: a wrong one is a diagnostic at its
          // value, and nothing starts (not a failure once the engine is half up)
          try {
            readSettings(values);
          } catch (e) {
            if (e instanceof DiagnosticError) diags.push(...e.diagnostics);
            else throw e;
          }
          // a confirmation is used once across replicas: its nonce is a key the store remembers
          if (!services.lintOnly && c.tools.some((t) => t.confirm)) noteKeyUse(services, 'claims', CONFIRMATIONS_USER);
          // a task started on one replica is asked for on any
          if (!services.lintOnly && c.tools.some((t) => t.task)) noteKeyUse(services, 'claims', TASKS_USER);
          if (!services.lintOnly) return diags;
          // lint: every approval that no longer matches its tool
          const approvals = readApprovals(values.dir);
          const envs = values.environment.file ? [values.environment.name] : Object.keys(approvals);
          for (const t of c.tools) {
            for (const env of envs) {
              if (approvalState(t, approvals, env) !== 'changed') continue;
              const w = c.where(t.name)!;
              diags.push(
                diagAt(
                  w.src,
                  ['tools', w.index, 'name'],
                  `tool '${t.name}' changed since it was approved for '${env}' (its metadata or its route's schemas); it is not served there until approved again: engine tools approve ${t.name} --env ${env}`,
                ),
              );
            }
          }
          return diags;
        },
      };
      return [handler];
    },

    async start(engine: RunningEngine) {
      if (!collector?.tools.length || !valuesSet) return;
      const log = engine.services.logger.child({ component: 'gateway' });
      const { settings, served } = serving(engine, collector, valuesSet, log);
      const verifier = new TokenVerifier(settings.jwt, log);
      await verifier.init();
      // gateway.redis wins; otherwise the engine store's Redis (engine.store.redis) serves the limits
      const redis = limiterRedis(settings.redis, engine.services.settings.store, settings.redisOnError ?? 'allow');
      const limiter: Limiter = redis
        ? await RedisLimiter.connect(redis.url, redis.prefix, log, redis.onError)
        : new MemoryLimiter();
      engine.services.onClose(() => limiter.close());
      // with deny, an unreachable store means every /mcp call is a 503: not ready (with allow it serves, unlimited)
      if (redis?.onError === 'deny' && limiter.available)
        engine.services.readiness.set('gateway.redis', () => limiter.available!());
      // single use of a confirmation across replicas: its nonce claimed in the engine's store
      const ttlMs = settings.confirmation.ttlSeconds * 1000;
      const confirmations = new Confirmations(
        settings.confirmation.secret || Confirmations.randomKey(),
        ttlMs,
        storeFor(engine.services, CONFIRMATIONS_USER).claims({
          namespace: 'gateway-confirmations',
          ttlMs: 2 * ttlMs,
          maxKeys: 100_000,
        }),
      );
      // 2025-11-25 clients confirm on the gateway's page: pending confirmations in the same store
      const urlConfirmations = new UrlConfirmations(
        storeFor(engine.services, CONFIRMATIONS_USER).records({
          namespace: 'gateway-url-confirmations',
          ttlMs: 2 * ttlMs,
          maxKeys: 100_000,
        }),
        ttlMs,
      );
      // task state in the same store (any replica answers tasks/get); the work runs in this engine
      const taskTtlMs = settings.tasks.ttlSeconds * 1000;
      const tasks = new GatewayTasks(
        storeFor(engine.services, TASKS_USER).records({
          namespace: 'gateway-tasks',
          ttlMs: taskTtlMs,
          maxKeys: 10_000,
        }),
        taskTtlMs,
        settings.tasks.maxRunning,
      );
      taskMetrics(engine.services.metrics.registry, () => running?.tasks);
      if (typeof opts.audit === 'object') audit = opts.audit;
      // gateway.audit.enabled: false turns the trail off in this environment (decided at start)
      else if (opts.audit !== false && settings.auditEnabled) {
        // one trail for the engine's life: reloads keep it; the store opens with the first decision
        let closing = false;
        const trail = new DurableAudit({
          store: () => {
            const store = durableStoreFor(engine.services);
            // closers run last-registered first: after the store's, so the trail is written out before it closes
            if (!closing) engine.services.onClose(() => trail.close());
            closing = true;
            return store;
          },
          log,
          onDrop: () => metrics.dropped.inc(),
        });
        const metrics = auditMetrics(engine.services.metrics.registry, () => trail);
        audit = trail;
      }
      const gateway = new McpGateway({
        settings,
        tools: served,
        verifier,
        limiter,
        call: engine.call,
        log,
        jsonDepthLimit: engine.services.settings.server.jsonDepthLimit,
        metrics: gatewayMetrics(engine.services.metrics.registry),
        path: MCP_PATH,
        confirmations,
        urlConfirmations,
        tasks,
        audit,
      });
      const page = confirmPage(settings, urlConfirmations, verifier, limiter, audit, log);
      running = { gateway, verifier, limiter, settings, served, confirmations, urlConfirmations, tasks, page };
      servedNames = new Set(served.map((t) => t.name));
      const telemetry = mcpTelemetry(engine.services.metrics.registry, engine.services.tracing);
      const isServed = (name: string) => servedNames.has(name);

      // /mcp is served on the engine's node:http front router: the MCP handler reads the raw
      // body itself (invalid JSON is a JSON-RPC parse error, not a problem document)
      const NOT_ALLOWED =
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Method not allowed: this stateless server answers POST only"}}';
      const notAllowed = (_req: IncomingMessage, res: ServerResponse) => {
        res
          .writeHead(405, {
            allow: 'POST',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(NOT_ALLOWED),
          })
          .end(NOT_ALLOWED);
      };
      const answer = (res: ServerResponse, out: GatewayResponse, correlationId: string) => {
        if (engine.http.isClosing) out.headers.connection = 'close';
        // every answer names its correlation id (docs/configuration.md), results as well as refusals
        out.headers['x-correlation-id'] = correlationId;
        // a length, not chunked framing: one buffer less per answer, and clients read it at once
        if (out.body !== undefined) out.headers['content-length'] = String(Buffer.byteLength(out.body));
        res.writeHead(out.status, out.headers).end(out.body);
      };
      engine.http.addRaw('POST', MCP_PATH, (req, res, body, correlationId) => {
        // the gateway of the last load (reload() replaces it); a promise only where the answer waits
        const r: GatewayRequest = {
          headers: req.headers,
          body,
          remoteAddress: req.socket.remoteAddress,
          correlationId,
        };
        const op = telemetry.begin(r, isServed);
        r.op = op;
        const out = running!.gateway.handle(r);
        if (out instanceof Promise)
          return out.then((o) => {
            op.end(o);
            answer(res, o, correlationId);
          });
        op.end(out);
        answer(res, out, correlationId);
      });
      // RFC 9728 protected resource metadata: the path-suffixed form of /mcp and the root form
      // (MCP clients try them in this order when a 401 names neither)
      const metadata = (req: IncomingMessage, res: ServerResponse, _body: string, correlationId: string) => {
        const out = running!.gateway.resourceMetadata({
          headers: req.headers,
          remoteAddress: req.socket.remoteAddress,
          correlationId,
        });
        res
          .writeHead(out.status, { ...out.headers, 'content-length': String(Buffer.byteLength(out.body ?? '')) })
          .end(out.body);
      };
      engine.http.addRaw('GET', `${METADATA_PATH}${MCP_PATH}`, metadata);
      engine.http.addRaw('GET', METADATA_PATH, metadata);
      // the confirmation page of 2025-11-25 clients (URL elicitation, confirm-page.ts)
      const confirming = (req: IncomingMessage, res: ServerResponse, body: string, correlationId: string) =>
        running!.page.handle(req, res, body, correlationId);
      engine.http.addRaw('GET', `${MCP_PATH}${CONFIRMATIONS_PATH}*`, confirming);
      engine.http.addRaw('POST', `${MCP_PATH}${CONFIRMATIONS_PATH}*`, confirming);
      engine.http.addRaw('GET', MCP_PATH, notAllowed);
      engine.http.addRaw('DELETE', MCP_PATH, notAllowed);
      log.info(
        {
          tools: served.map((t) => t.name),
          subscriptions: settings.subscriptions.length,
          limits: redis ? 'redis' : 'memory',
          env: settings.env,
        },
        'gateway: serving /mcp',
      );
    },

    async reload(engine: RunningEngine) {
      if (!collector || !valuesSet) return;
      if (!running) return ext.start!(engine);
      const prev = running;
      const log = engine.services.logger.child({ component: 'gateway' });
      const { settings, served } = serving(engine, collector, valuesSet, log);
      // the token verifier and the rate limiter (and their counters) stay as they started
      if (
        JSON.stringify(settings.jwt) !== JSON.stringify(prev.settings.jwt) ||
        JSON.stringify(settings.redis) !== JSON.stringify(prev.settings.redis) ||
        JSON.stringify(settings.confirmation) !== JSON.stringify(prev.settings.confirmation) ||
        JSON.stringify(settings.tasks) !== JSON.stringify(prev.settings.tasks) ||
        settings.auditEnabled !== prev.settings.auditEnabled
      ) {
        log.warn('gateway: jwt, redis, confirmation, tasks and audit settings apply at the next restart');
      }
      const gateway = new McpGateway({
        settings,
        tools: served,
        verifier: prev.verifier,
        limiter: prev.limiter,
        call: engine.call,
        log,
        jsonDepthLimit: engine.services.settings.server.jsonDepthLimit,
        metrics: gatewayMetrics(engine.services.metrics.registry),
        path: MCP_PATH,
        confirmations: prev.confirmations,
        urlConfirmations: prev.urlConfirmations,
        tasks: prev.tasks,
        audit,
      });
      const page = confirmPage(settings, prev.urlConfirmations, prev.verifier, prev.limiter, audit, log);
      running = { ...prev, gateway, settings, served, page };
      servedNames = new Set(served.map((t) => t.name));
      log.info({ tools: served.map((t) => t.name) }, 'gateway: serving the tools of the reloaded routes');
    },

    commands(program: Command, ctx: CommandContext) {
      registerGatewayCommands(program, ext, ctx);
    },
  };
  return ext;
}

/** The confirmation page with the settings of a load (its trusted proxies and limits). */
function confirmPage(
  settings: GatewaySettings,
  confirmations: UrlConfirmations,
  verifier: TokenVerifier,
  limiter: Limiter,
  audit: GatewayAudit,
  log: RunningEngine['services']['logger'],
): ConfirmPage {
  const ip = new ClientIp(settings.trustedProxies, settings.ipv6Prefix);
  return new ConfirmPage({ confirmations, verifier, limiter, ip, settings, audit, log });
}

/** The gateway settings of a load and the tools it serves (approved for the environment). */
function serving(
  engine: RunningEngine,
  collector: ToolCollector,
  values: ValuesSet,
  log: RunningEngine['services']['logger'],
): { settings: GatewaySettings; served: Tool[] } {
  const settings = readSettings(values);
  const approvals = readApprovals(values.dir);
  const served: Tool[] = [];
  for (const name of collector.unserved)
    log.info({ tool: name }, 'gateway: tool not served: its route is not loaded in this run');
  for (const t of collector.tools) {
    const st = approvalState(t, approvals, settings.env);
    if (st === 'approved') served.push(t);
    else
      log.warn(
        { tool: t.name, env: settings.env, state: st },
        st === 'changed'
          ? 'gateway: tool changed since its approval; not served until approved again (engine tools approve)'
          : 'gateway: tool not approved for this environment; not served (engine tools approve)',
      );
  }
  // the listener's trusted proxies (engine.server.trustProxy) count for client addresses too
  settings.trustedProxies = [...new Set([...settings.trustedProxies, ...engine.services.settings.server.trustProxy])];
  return { settings, served };
}
