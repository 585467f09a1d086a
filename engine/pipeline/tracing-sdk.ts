// Starts and stops the OpenTelemetry SDK from the usual OTel environment variables. Tracing is off
// unless OTEL_TRACES_EXPORTER names an exporter or an OTLP endpoint is set; when off, the SDK is
// never loaded. The OTLP exporter, batch processor, sampler and resource read their own variables
// (OTEL_EXPORTER_OTLP_*, OTEL_BSP_*, OTEL_TRACES_SAMPLER*, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES).
// In-process consumers (the console's exchange recorder) join the engine's `tracing.consumers`:
// they switch tracing on too, and see the very spans the exporters get. Each engine has its own
// tracer provider: two engines in one process trace, and stop tracing, each on its own.

import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import type { EngineTracing } from './tracing.ts';
import { compileSecrets, maskText } from '../observability/mask.ts';
import { SettingError } from '../core/diagnostics.ts';

const DEFAULT_SERVICE_NAME = 'bank-integration-engine';
const EXPORTERS = ['otlp', 'console', 'none'];
/** the OTLP encodings of the HTTP exporter (gRPC is not shipped) */
const PROTOCOLS = ['http/protobuf', 'http/json'];

export interface TracingOptions {
  /** the engine's tracing: its consumers are read, its tracer installed */
  tracing: EngineTracing;
  logger: Logger;
  /** the variables to read (default: process.env; the SDK's own parts always read process.env) */
  env?: NodeJS.ProcessEnv;
  /** exports spans here instead, each as it ends (tests: an InMemorySpanExporter) */
  exporter?: SpanExporter;
}

export interface TracingHandle {
  /** flushes the spans not yet exported and switches tracing off */
  shutdown(): Promise<void>;
}

/**
 * Engines tracing now. OpenTelemetry's diag logger is one per process (the API's own global): the
 * first engine to trace sets it (its log gets the SDK's warnings), the last to stop removes it, so
 * closing one engine leaves the others' export failures reported.
 */
let diagHolders = 0;

/** One processor of the provider that hands each span to the engine's consumers registered at that moment. */
function fanOut(consumers: Set<SpanProcessor>): SpanProcessor {
  return {
    onStart(span: Span, ctx: Context) {
      for (const c of consumers) c.onStart(span, ctx);
    },
    onEnd(span: ReadableSpan) {
      for (const c of consumers) c.onEnd(span);
    },
    forceFlush: async () => {
      await Promise.all([...consumers].map((c) => c.forceFlush()));
    },
    shutdown: async () => {},
  };
}

/**
 * The exporters the environment asks for; empty when tracing is off. Throws a SettingError (one
 * line at start-up) on a value it cannot honour.
 */
export function tracingExporters(env: NodeJS.ProcessEnv): string[] {
  if (
    String(env.OTEL_SDK_DISABLED ?? '')
      .trim()
      .toLowerCase() === 'true'
  )
    return [];
  const named = env.OTEL_TRACES_EXPORTER?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // the OTel default is otlp; the engine's is off, unless an endpoint says where spans go
  const list = (named || (endpoint ? 'otlp' : 'none'))
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const x of list) {
    if (!EXPORTERS.includes(x))
      throw new SettingError(
        `OTEL_TRACES_EXPORTER: unknown exporter '${x}'; allowed: ${EXPORTERS.join(', ')} (comma-separated)`,
      );
  }
  if (list.includes('otlp')) {
    const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
      ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    const protocol = (env[name] ?? '').trim();
    if (protocol && !PROTOCOLS.includes(protocol))
      throw new SettingError(
        `${name}: the engine exports OTLP over HTTP (port 4318), not '${protocol}'; allowed: ${PROTOCOLS.join(', ')}`,
      );
  }
  return list.filter((x) => x !== 'none');
}

/**
 * Installs a tracer on the engine's `tracing` when the environment (or `exporter`) asks for one;
 * undefined when tracing stays off.
 */
export async function startTracing(opts: TracingOptions): Promise<TracingHandle | undefined> {
  const env = opts.env ?? process.env;
  const { consumers } = opts.tracing;
  const exporters = opts.exporter ? [] : tracingExporters(env);
  if (!opts.exporter && exporters.length === 0 && consumers.size === 0) return undefined;
  if (opts.tracing.tracer) return { shutdown: async () => {} };
  const sdk = await import('./tracing-sdk-parts.ts');
  const processors: SpanProcessor[] = [fanOut(consumers)];
  if (opts.exporter) processors.push(new sdk.SimpleSpanProcessor(opts.exporter));
  for (const x of exporters) {
    if (x === 'console') processors.push(new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter()));
    if (x === 'otlp') {
      const { OTLPTraceExporter } = await import('./tracing-otlp.ts');
      processors.push(new sdk.BatchSpanProcessor(new OTLPTraceExporter()));
    }
  }
  const resource = sdk
    .defaultResource()
    .merge(sdk.resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(sdk.detectResources({ detectors: [sdk.envDetector] }));
  // the console alone: a sampler bounding what it records per second (an exporter's sampling is the
  // OTEL_TRACES_SAMPLER's, and the console then sees what the exporter gets)
  const perSecond = opts.tracing.recordPerSecond;
  const alone = !opts.exporter && exporters.length === 0 && perSecond !== undefined;
  const sampler = alone ? new sdk.ParentBasedSampler({ root: new sdk.RateSampler(perSecond) }) : undefined;
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: processors,
    ...(sampler ? { sampler } : {}),
  });
  const log = opts.logger.child({ component: 'tracing' });
  // export failures are the SDK's diagnostics: to the log, with the exporter's credentials masked
  const secrets = compileSecrets(headerValues(env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_TRACES_HEADERS));
  const text = (args: unknown[]) =>
    maskText(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' '), secrets);
  if (diagHolders++ === 0) {
    diag.setLogger(
      {
        error: (...a) => log.warn(text(a)),
        warn: (...a) => log.warn(text(a)),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      DiagLogLevel.WARN,
    );
  }
  opts.tracing.install(provider.getTracer(DEFAULT_SERVICE_NAME), new sdk.W3CTraceContextPropagator());
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  log.info(
    {
      exporters: opts.exporter ? ['custom'] : exporters,
      consumers: consumers.size,
      ...(alone ? { recordPerSecond: perSecond } : {}),
      ...(exporters.includes('otlp') && endpoint ? { collector: collectorHost(endpoint) } : {}),
    },
    'tracing on',
  );
  let done: Promise<void> | undefined;
  return {
    shutdown: () =>
      (done ??= (async () => {
        opts.tracing.install(undefined);
        try {
          await provider.shutdown();
        } catch (err) {
          log.warn({ reason: text([err]) }, 'tracing: flushing spans at shutdown failed');
        }
        if (--diagHolders === 0) diag.disable();
      })()),
  };
}

/** Values of an OTLP headers variable (`api-key=secret,x=y`): masked wherever they appear. */
function headerValues(...vars: (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of vars) {
    for (const pair of (v ?? '').split(',')) {
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      if (pair.includes('=') && value.length >= 4) out.push(value, safeDecode(value));
    }
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The collector for a log line: host and port only, never user info, a query or a URL (the
 * benchmark harness takes the first URL the engine prints for the engine's own).
 */
function collectorHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid URL';
  }
}
