// The sampler of the console's own tracing (no exporter configured): every exchange is recorded
// while they come at most `perSecond` a second; above that, only that many a second are, and the
// rest run with a non-recording span (no span objects kept, no bodies serialised or masked). A
// token bucket holding one second's budget, so a burst after a quiet spell is still recorded whole.
// Children follow their exchange (ParentBased), so an exchange is recorded whole or not at all.

// Loaded with the SDK (tracing-sdk-parts.ts), only when tracing is on.
import { SamplingDecision, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace-base';

export class RateSampler implements Sampler {
  private tokens: number;
  private last = performance.now();
  private readonly perMs: number;

  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
    this.perMs = perSecond / 1000;
  }

  shouldSample(): SamplingResult {
    const now = performance.now();
    this.tokens = Math.min(this.perSecond, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
    if (this.tokens < 1) return { decision: SamplingDecision.NOT_RECORD };
    this.tokens -= 1;
    return { decision: SamplingDecision.RECORD_AND_SAMPLED };
  }

  toString(): string {
    return `RateSampler{${this.perSecond}/s}`;
  }
}
