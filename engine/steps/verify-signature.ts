// verify-signature: authenticates an inbound webhook (Standard Webhooks HMAC-SHA256 over the raw
// body) before anything else runs; a missing, bad or stale signature is a 401 and the route
// publishes nothing. The route's http source needs `raw-body: true`. A replay of a failed exchange
// (engine/store/replay.ts) is trusted: it was verified when it was received.

import { defineStep } from './step-kind.ts';
import { PlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { verifySignature } from '../outbound/webhook-signature.ts';

interface VerifyConfig {
  secret: string;
  'previous-secret'?: string;
  tolerance?: number | string;
  code?: string;
}

export default defineStep<VerifyConfig>({
  kind: 'verify-signature',
  description:
    'Verifies a Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature) over the raw body; 401 otherwise.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['secret'],
    properties: {
      secret: { type: 'string', description: 'shared secret (an environmental key), whsec_<base64> or text' },
      'previous-secret': { type: 'string', description: 'also accepted during a rotation' },
      tolerance: {
        anyOf: [
          { type: 'integer', minimum: 1 },
          { type: 'string', pattern: '^\\d+$' },
        ],
        default: 300,
        description: 'seconds a timestamp may be off',
      },
      code: { type: 'string', default: CODE.unauthorized, description: 'platform code of the 401 problem' },
    },
  },
  compile(cfg, ctx) {
    const secrets = [cfg.secret, cfg['previous-secret']].filter(
      (s): s is string => !!s && !s.startsWith('<unresolved:'),
    );
    // an unresolved key is said by itself (a missing one once, config/missing-keys.ts)
    const unresolved = String(cfg.secret ?? '').startsWith('<unresolved:');
    if (!secrets.length && !ctx.services.lintOnly && !unresolved) ctx.fail('secret is empty', ['secret']);
    const tolerance = Number(cfg.tolerance ?? 300);
    const code = ctx.platformCode(cfg.code, ['code']) ?? CODE.unauthorized;
    return (ex) => {
      // a replay runs an input whose signature was verified when it was received: its timestamp is
      // past the tolerance by now, and its signature headers may not have been kept
      if (ex.replayOf) {
        ex.log.info(
          { replayOf: ex.replayOf, webhookId: ex.headers['webhook-id'] },
          'webhook signature verified when received',
        );
        return;
      }
      if (!ex.rawBody)
        throw new PlatformError({
          kind: 'config',
          detail: 'verify-signature needs `raw-body: true` on the http source',
        });
      const h = ex.headers;
      const r = verifySignature(
        secrets,
        { id: h['webhook-id'], timestamp: h['webhook-timestamp'], signature: h['webhook-signature'], body: ex.rawBody },
        tolerance,
      );
      if (!r.ok) {
        ex.log.warn({ webhookId: h['webhook-id'], reason: r.reason }, 'webhook signature rejected');
        throw new PlatformError({ kind: 'unauthorized', code, detail: `invalid webhook signature: ${r.reason}` });
      }
    };
  },
  request(c, facts) {
    if (c) facts.signed();
  },
  example: `id: example-verify-signature
values: acme
from:
  http:
    path: /examples/webhooks
    raw-body: true   # the signature covers the raw bytes
steps:
  - verify-signature:
      secret: "{{acme.webhookSecret}}"
      tolerance: 300`,
});
