// Audit: the gateway's audit trail (every call, refusal, confirmation and tool approval), newest
// first, filtered by user, tool, kind and time; and whether the hash chain verifies (the records
// that do not are named). Read only: /console/api/audit and /console/api/audit/verify.
import { useEffect, useState } from 'preact/hooks';
import { html, fmtDateTime } from './html.js';
import { api } from './api.js';
import { filterChoice, filterField, sinceOf, timeWindows } from './filters.js';

const KINDS = ['', 'call', 'refusal', 'confirmation', 'approval', 'gap'];
const WINDOWS = timeWindows(['1h', '24h', '7d', '30d']);
const LIMIT = 200;

/** The outcome's badge class: ok, error (refused, error), else plain. */
const badge = (o) => (o === 'ok' || o === 'given' || o?.startsWith('approved') ? 'ok' : o ? 'error' : '');

export function AuditPage({ query }) {
  const [filters, setFilters] = useState({
    user: query.get('user') ?? '',
    tool: query.get('tool') ?? '',
    kind: KINDS.includes(query.get('kind') ?? '') ? (query.get('kind') ?? '') : '',
    since: '',
  });
  const [data, setData] = useState(/** @type {any} */ (undefined));
  const [chain, setChain] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const q = new URLSearchParams({ limit: String(LIMIT) });
    for (const k of /** @type {const} */ (['user', 'tool', 'kind'])) if (filters[k]) q.set(k, filters[k]);
    const since = sinceOf(filters.since);
    if (since) q.set('since', since);
    let current = true;
    api(`audit?${q}`).then(
      (d) => {
        if (!current) return;
        setData(d);
        setError(undefined);
      },
      (e) => current && setError(e.message),
    );
    return () => {
      current = false;
    };
  }, [filters.user, filters.tool, filters.kind, filters.since, version]);
  useEffect(() => {
    api('audit/verify').then(setChain, (e) => setChain({ error: e.message }));
  }, [version]);

  const field = (name, label) => filterField(filters, setFilters, name, label);
  const choice = (name, label, options) => filterChoice(filters, setFilters, name, label, options);
  const records = data?.records ?? [];
  return html`<section class="audit">
    <div class="chain" data-chain=${chain ? (chain.error ? 'unknown' : chain.ok ? 'verified' : 'broken') : 'checking'}>
      ${
        !chain
          ? html`<span class="muted">Checking the chain…</span>`
          : chain.error
            ? html`<span class="error">The chain could not be checked: ${chain.error}</span>`
            : chain.ok
              ? html`<span class="badge ok">chain verified</span>${' '}<span class="muted"
                    >${`${chain.records} records`}${chain.head ? ` · head: record ${chain.head.seq} ` : ''}</span
                  >${chain.head ? html`<code>${chain.head.hash.slice(0, 16)}…</code>` : ''}`
              : html`<span class="badge error">chain broken</span>
                  <ul class="problems">
                    ${chain.problems.map((p) => html`<li class="error">${p}</li>`)}
                  </ul>`
      }
    </div>
    <form class="filters" onSubmit=${(e) => e.preventDefault()}>
      ${field('user', 'user')} ${field('tool', 'tool')}
      ${choice(
        'kind',
        'kind',
        KINDS.map((k) => [k, k || 'any']),
      )}
      ${choice('since', 'at', WINDOWS)}
      <button type="button" class="secondary" onClick=${() => setVersion((v) => v + 1)}>Refresh</button>
    </form>
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${
      !data
        ? error
          ? ''
          : html`<p class="muted">Loading…</p>`
        : records.length === 0
          ? html`<p class="muted">
              No audit record matches. Every gateway decision (a tool call, a refusal, a tool approval) is kept here.
            </p>`
          : html`<table class="list" aria-label="audit records">
              <thead>
                <tr>
                  <th>#</th>
                  <th>at</th>
                  <th>kind</th>
                  <th>tool</th>
                  <th>user</th>
                  <th>subscription</th>
                  <th>key id</th>
                  <th>outcome</th>
                  <th>code / check</th>
                  <th>arguments</th>
                  <th>correlation id</th>
                </tr>
              </thead>
              <tbody>
                ${records.map(
                  (r) =>
                    html`<tr class=${`audit-row ${r.kind}`} data-seq=${r.seq}>
                      <td>${r.seq}</td>
                      <td>${fmtDateTime(r.at)}</td>
                      <td>${r.kind}</td>
                      <td>${r.tool ?? ''}</td>
                      <td>${r.user ?? ''}${r.issuer ? html`<br /><span class="muted">${r.issuer}</span>` : ''}</td>
                      <td>${r.subscription ?? ''}</td>
                      <td><code>${r.keyId ?? ''}</code></td>
                      <td>${r.outcome ? html`<span class=${`badge ${badge(r.outcome)}`}>${r.outcome}</span>` : ''}</td>
                      <td><code>${r.code ?? r.check ?? ''}</code></td>
                      <td title=${r.argsDigest ?? ''}>
                        <code>${r.argsDigest ? `${r.argsDigest.slice(7, 19)}…` : ''}</code>
                      </td>
                      <td>
                        ${r.correlationId ? html`<code>${r.correlationId}</code>` : r.detail ? html`<span class="muted">${r.detail}</span>` : ''}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
  </section>`;
}
