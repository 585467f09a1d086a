// The OTLP exporter, in a module of its own: tracing-sdk.ts imports it only when spans go to a
// collector, and the build bundles it into a chunk of its own.

export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
