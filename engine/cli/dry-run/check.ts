// One result per check of `engine dry-run`, timed, and how it is printed: a line a person reads
// (ok / warn / FAIL, what was checked, the client, host:port, time, the reason in words) or JSON.

export type Status = 'ok' | 'warn' | 'FAIL';

export interface CheckResult {
  status: Status;
  /** dns, tcp, tls, amqp-login, store, jwks */
  check: string;
  /** the client profile, route or setting checked */
  name: string;
  /** host:port (or the folder of an embedded store) */
  target: string;
  ms: number;
  reason: string;
}

export type Outcome = { status: Status; reason: string };

/** Runs `fn`, timing it; a throw is a FAIL with the error's message. */
export async function timed(
  check: string,
  name: string,
  target: string,
  fn: () => Promise<Outcome>,
): Promise<CheckResult> {
  const started = performance.now();
  let out: Outcome;
  try {
    out = await fn();
  } catch (e) {
    out = { status: 'FAIL', reason: (e as Error).message ?? String(e) };
  }
  return { check, name, target, ms: Math.round(performance.now() - started), ...out };
}

/** Lines in aligned columns, then a summary line. */
export function formatResults(results: CheckResult[]): string {
  const width = (f: (r: CheckResult) => string) => Math.max(0, ...results.map((r) => f(r).length));
  const wc = width((r) => r.check);
  const wn = width((r) => r.name);
  const wt = width((r) => r.target);
  const lines = results.map((r) =>
    [
      r.status.padEnd(4),
      r.check.padEnd(wc),
      r.name.padEnd(wn),
      r.target.padEnd(wt),
      `${r.ms} ms`.padStart(7),
      ` ${r.reason}`,
    ].join(' '),
  );
  const failed = results.filter((r) => r.status === 'FAIL').length;
  const warned = results.filter((r) => r.status === 'warn').length;
  lines.push(`${results.length} check(s): ${failed} failed, ${warned} warning(s)`);
  return lines.join('\n') + '\n';
}
