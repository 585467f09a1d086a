// The two copies of the FX connector the resilience benchmark compares, written to a temporary
// directory: `guarded`, the shipped client profile (its circuit breaker and retry budget) with
// the screening client's bulkhead added; `unguarded`, the same step with the same settings written
// in the step itself, no client profile, so no guard at all (the engine keeps one per profile).
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const FX = 'routes/hubvendor-foreign-exchange';

/** The seed-http and hubvendor templates' settings (but base-url, in the step's url), in the step. */
const INLINE = `      forward-headers: [authorization]
      proxy: "{{http.client.proxy.activate}}"
      timeouts:
        connect: "{{http.client.connect.timeout}}"
        request: "{{http.client.request.timeout}}"
        response: "{{http.client.response.timeout}}"
      retry:
        enabled: "{{retryFlag}}"
        max-retries: "{{maximumRedeliveries}}"
        delay: "{{redeliveryDelay}}"
        statuses: "{{retryStatuses}}"
        multiplier: "{{backOffMultiplier}}"
`;

function replaced(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the shipped FX connector changed: ${String(from)} not found`);
  return out;
}

/** Writes both copies; returns the routes folder of each (its connector.yaml holds the client templates). */
export function writeProjects(): { guarded: string; unguarded: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-resilience-'));
  const guarded = join(dir, 'guarded', 'routes', 'hubvendor-foreign-exchange');
  cpSync('routes/connector.yaml', join(dir, 'guarded', 'routes', 'connector.yaml'));
  cpSync(FX, guarded, { recursive: true });
  const gc = join(guarded, 'connector.yaml');
  writeFileSync(
    gc,
    replaced(
      readFileSync(gc, 'utf8'),
      '  hubvendor: { extends: hubvendor }',
      '  hubvendor:\n    extends: hubvendor\n    bulkhead: { max-concurrent: 64, max-queue: 64, queue-timeout: 1000 }',
    ),
  );

  const unguarded = join(dir, 'unguarded', 'routes', 'hubvendor-foreign-exchange');
  cpSync('routes/connector.yaml', join(dir, 'unguarded', 'routes', 'connector.yaml'));
  cpSync(FX, unguarded, { recursive: true });
  const ur = join(unguarded, 'get-exchange-rate.yaml');
  let route = replaced(readFileSync(ur, 'utf8'), '      client: hubvendor\n', INLINE);
  // a profile's URL is its base-url + the step's path (steps/to-http.ts); here the step's own url
  route = replaced(route, 'path: "{{hubvendor', 'url: "{{hubvendor.baseUrl}}{{hubvendor');
  writeFileSync(ur, route);
  return { guarded: dirname(guarded), unguarded: dirname(unguarded), dir };
}
