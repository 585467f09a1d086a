// Routes: every loaded route by connector (marked when a client's breaker is not closed); the
// selected one with its diagram, live metrics, its clients' breaker states, what it inherits
// (inheritance.js), values (secrets masked by the engine), the gateway tools calling it and its
// lint diagnostics. A step clicked in the diagram opens its source below it (`?source=&line=`).
import { useEffect, useRef, useState } from 'preact/hooks';
import { html, fmtMs } from './html.js';
import { api, live } from './api.js';
import { RouteDiagram } from './diagram.js';
import { Inheritance } from './inheritance.js';
import { BreakerBadge, clientsByRoute } from './clients-page.js';

export function RoutesPage({ selected, query }) {
  const [routes, setRoutes] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const [metrics, setMetrics] = useState({});
  const [lint, setLint] = useState(/** @type {any} */ (undefined));
  /** route id -> its clients' breakers: from the routes answer, then from each transition */
  const [clients, setClients] = useState({});

  useEffect(() => {
    api('routes').then(
      (d) => {
        setRoutes(d.routes);
        setMetrics(Object.fromEntries(d.routes.map((r) => [r.id, r.metrics])));
        setClients(Object.fromEntries(d.routes.map((r) => [r.id, r.clients ?? []])));
      },
      (e) => setError(e.message),
    );
    api('lint').then(
      (d) => setLint(d.diagnostics),
      (e) => setLint([{ file: '', line: 0, col: 0, message: `lint failed: ${e.message}` }]),
    );
    const offMetrics = live('metrics', setMetrics);
    const offClients = live('clients', (d) => setClients(clientsByRoute(d.clients)));
    return () => {
      offMetrics();
      offClients();
    };
  }, []);

  if (error) return html`<p class="error">${error}</p>`;
  if (!routes) return html`<p class="muted">Loading routes…</p>`;
  const byConnector = new Map();
  for (const r of routes) {
    const c = r.connector ?? '(no connector)';
    if (!byConnector.has(c)) byConnector.set(c, []);
    byConnector.get(c).push(r);
  }
  const current = routes.find((r) => r.id === selected) ?? routes[0];
  const diagsOf = (r) => (lint ?? []).filter((d) => d.file === r.file);
  const troubled = (r) => (clients[r.id] ?? []).filter((c) => c.state && c.state !== 'closed');
  return html`<div class="split">
    <nav class="side" aria-label="routes">
      ${[...byConnector].map(
        ([c, rs]) =>
          html`<section>
            <h3>${c}</h3>
            <ul>
              ${rs.map(
                (r) =>
                  html`<li>
                    <a
                      href=${`#/routes/${encodeURIComponent(r.id)}`}
                      class=${r.id === current?.id ? 'active route-link' : 'route-link'}
                      data-route=${r.id}
                    >
                      ${r.id}${diagsOf(r).length ? html` <span class="badge warn">${diagsOf(r).length}</span>` : ''}
                      ${troubled(r).map((c) => html` <${BreakerBadge} ...${c} label=${false} />`)}
                    </a>
                  </li>`,
              )}
            </ul>
          </section>`,
      )}
    </nav>
    ${current ? html`<${RouteDetail} route=${current} metrics=${metrics[current.id]} clients=${clients[current.id] ?? []} diagnostics=${lint === undefined ? undefined : diagsOf(current)} source=${query?.get('source') ?? undefined} line=${Number(query?.get('line')) || undefined} />` : html`<p>No routes are loaded.</p>`}
  </div>`;
}

function RouteDetail({ route, metrics, clients, diagnostics, source, line }) {
  const m = metrics ?? {};
  return html`<article class="detail" data-route=${route.id}>
    <h2>${route.id}</h2>
    ${route.description ? html`<p class="description">${route.description}</p>` : ''}
    <p class="muted">
      ${route.source.label} ·
      <code>${route.file}</code>${route.valuesName ? html` · values <code>${route.valuesName}</code>` : ''}
    </p>
    <div class="metrics" aria-label="live metrics">
      <span><b>${m.rate ?? 0}</b>/s</span>
      <span><b>${m.requests ?? 0}</b> exchanges</span>
      <span class=${m.errors ? 'bad' : ''}><b>${m.errors ?? 0}</b> errors</span>
      <span>p50 <b>${fmtMs(m.p50)}</b></span>
      <span>p99 <b>${fmtMs(m.p99)}</b></span>
      <span><b>${m.retries ?? 0}</b> retries</span>
      <span><b>${m.inFlight ?? 0}</b> in flight</span>
      <a href=${`#/exchanges?route=${encodeURIComponent(route.id)}`}>its exchanges →</a>
    </div>
    ${
      clients.length
        ? html`<p class="route-clients" aria-label="clients">
            ${clients.map((c) => html`<${BreakerBadge} ...${c} /> `)}
            <a href="#/clients">clients →</a>
          </p>`
        : ''
    }
    <section>
      <h3>Diagram</h3>
      <div class="diagram-box"><${RouteDiagram} graph=${route.graph} route=${route.id} /></div>
      <p class="muted">Click a step to open its source: the .jsonata it runs, else its line of the route file.</p>
    </section>
    ${source ? html`<${Source} route=${route.id} file=${source} line=${line} key=${`${source}:${line}`} />` : ''}
    <${Inheritance} inherits=${route.inherits} />
    <section>
      <h3>Lint</h3>
      ${
        diagnostics === undefined
          ? html`<p class="muted">Linting the project…</p>`
          : diagnostics.length === 0
            ? html`<p class="ok">No diagnostics.</p>`
            : html`<ul class="diagnostics">
                ${diagnostics.map((d) => html`<li class=${d.severity ?? 'error'}><code>${d.file}:${d.line}:${d.col}</code> ${d.message}${d.path ? html` <span class="muted">(at ${d.path})</span>` : ''}</li>`)}
              </ul>`
      }
    </section>
    <section>
      <h3>Gateway tools</h3>
      ${route.tools.length ? html`<p>${route.tools.map((t) => html`<a class="chip" href=${`#/gateway/${encodeURIComponent(t)}`}>${t}</a> `)}</p>` : html`<p class="muted">No gateway tool calls this route.</p>`}
    </section>
    <section>
      <h3>Values</h3>
      ${
        route.values.length
          ? html`<table class="values">
              <thead>
                <tr>
                  <th>property</th>
                  <th>value</th>
                  <th>from</th>
                </tr>
              </thead>
              <tbody>
                ${route.values.map(
                  (v) =>
                    html`<tr>
                      <td><code>${v.key}</code></td>
                      <td><code>${v.value}</code></td>
                      <td class="muted">${v.origin}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p class="muted">The route uses no values file.</p>`
      }
    </section>
  </article>`;
}

/** A project file a step of the diagram opens (masked by the engine), its line marked and scrolled to. */
function Source({ route, file, line }) {
  const [src, setSrc] = useState(/** @type {any} */ (undefined));
  const at = useRef(/** @type {HTMLElement | null} */ (null));
  useEffect(() => {
    api(`source?file=${encodeURIComponent(file)}`).then(setSrc, (e) => setSrc({ error: e.message }));
  }, [file]);
  useEffect(() => at.current?.scrollIntoView({ block: 'center' }), [src]);
  return html`<section class="source" data-file=${file} data-line=${line ?? ''}>
    <h3>
      <code>${file}${line && line > 1 ? `:${line}` : ''}</code>
      <a href=${`#/routes/${encodeURIComponent(route)}`} class="muted"> close</a>
    </h3>
    ${
      !src
        ? html`<p class="muted">Loading…</p>`
        : src.error
          ? html`<p class="error">${src.error}</p>`
          : html`<pre class="source-text">
${src.text
                .split('\n')
                .map(
                  (t, i) =>
                    html`<span
                      class=${i + 1 === line ? 'line at' : 'line'}
                      data-line=${i + 1}
                      ref=${i + 1 === line ? at : undefined}
                      ><span class="n">${i + 1}</span>${t}
                    </span>`,
                )}</pre>`
    }
  </section>`;
}
