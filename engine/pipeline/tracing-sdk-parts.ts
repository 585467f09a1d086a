// The OpenTelemetry SDK parts tracing-sdk.ts uses, in one module it imports only when tracing is
// on. The build bundles them into a chunk of their own (build/bundle.mjs): loading the SDK's
// CommonJS files one by one was about a tenth of starting the whole simulated platform, whose console traces.

export {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
export { W3CTraceContextPropagator } from '@opentelemetry/core';
export { RateSampler } from './rate-sampler.ts';
export { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
