// What a to-http step keeps on the exchange of the vendor's last successful answer, for the
// output check's log line (output-check.ts) when that answer does not map.

import { maskText, type Secrets } from '../observability/mask.ts';

/**
 * The last answer a to-http step took as a success, kept on the exchange so that an answer that
 * does not map can be logged with it. Masking happens only then, with the credentials that call sent.
 */
export class VendorAnswer {
  constructor(
    readonly target: string,
    readonly status: number,
    private readonly body: unknown,
    private readonly secrets: () => Secrets,
  ) {}

  /** The body as received (JSON re-serialised), credentials masked, at most MAX_TEXT characters. */
  maskedText(): string {
    const text = typeof this.body === 'string' ? this.body : this.body === undefined ? '' : JSON.stringify(this.body);
    return maskText(text, this.secrets());
  }
}
