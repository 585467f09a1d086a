// A request sent while `/health/live` is probed every 2 ms from a second connection: its answer,
// its time and the probe's worst wait, which shows whether the engine's event loop kept turning.

export interface Probed {
  status: number;
  answer: any;
  requestMs: number;
  worstProbeMs: number;
  probes: number;
}

/** POSTs `body` (JSON) to `baseUrl + path` while probing `baseUrl/health/live`. */
export async function whileProbing(baseUrl: string, path: string, body = '{}'): Promise<Probed> {
  let running = true;
  let worst = 0;
  let probes = 0;
  const probe = (async () => {
    while (running) {
      const t = performance.now();
      await (await fetch(`${baseUrl}/health/live`, { signal: AbortSignal.timeout(10_000) })).arrayBuffer();
      worst = Math.max(worst, performance.now() - t);
      probes++;
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  await new Promise((r) => setTimeout(r, 20)); // the probe's connection is open
  const t = performance.now();
  const res = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const answer = await res.json();
  const requestMs = performance.now() - t;
  running = false;
  await probe;
  return { status: res.status, answer, requestMs, worstProbeMs: worst, probes };
}
