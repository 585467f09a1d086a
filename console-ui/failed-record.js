// One failed exchange: where it failed (route and version, source), why (code, detail, raw cause),
// how often and when, its correlation and trace ids, the input as kept (headers and body, masked by
// the engine); Replay and Discard while it is open, each confirmed first; its audit history.
import { useEffect, useState } from 'preact/hooks';
import { html, pretty, fmtDateTime } from './html.js';
import { api, failedChanged } from './api.js';
import { Operator, operatorHeaders, operatorName } from './operator.js';
import { FailedHistory } from './failed-history.js';

const ASK = {
  replay:
    'Replay runs the route as it is now on this original input, with the same idempotency key and event id: what did get through before is a duplicate downstream, never a second effect.',
  discard:
    'Discard settles this record without running it: it stays listed as discarded and can no longer be replayed.',
};

export function FailedRecord({ id }) {
  const [rec, setRec] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const [operator, setOperator] = useState(operatorName());
  const [pending, setPending] = useState(/** @type {'replay' | 'discard' | undefined} */ (undefined));
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState(/** @type {any} */ (undefined));
  const [version, setVersion] = useState(0);
  const path = `failed/${encodeURIComponent(id)}`;

  useEffect(() => {
    api(path).then(
      (r) => {
        setRec(r);
        setError(undefined);
      },
      (e) => setError(e.message),
    );
  }, [id, version]);

  const act = async () => {
    const action = pending;
    if (!action) return;
    setBusy(true);
    try {
      const r = await api(`${path}/${action}`, { method: 'POST', body: {}, headers: operatorHeaders(operator) });
      setRec(r.record);
      if (action === 'discard') setMessage({ ok: 'Discarded.' });
      else if (r.outcome === 'replayed') setMessage({ ok: 'Replayed: the route ran on the original input.' });
      else
        setMessage({
          error: `The replay failed again (${r.record.code}${r.record.detail ? `: ${r.record.detail}` : ''}); the record stays open.`,
        });
    } catch (e) {
      // e.g. 409: another operator replayed or discarded it meanwhile; show it as it is now
      setMessage({ error: /** @type {Error} */ (e).message });
    }
    setPending(undefined);
    setBusy(false);
    setVersion((v) => v + 1);
    failedChanged();
  };

  if (error && !rec)
    return html`<p class="error">${error}</p>
      <p><a href="#/failed">← all failed exchanges</a></p>`;
  if (!rec) return html`<p class="muted">Loading…</p>`;
  const open = rec.status === 'open';
  return html`<article class="failed-detail" data-id=${rec.id} data-status=${rec.status}>
    <p><a href="#/failed">← all failed exchanges</a></p>
    <h2>
      ${rec.route} <span class=${`badge ${rec.status}`}>${rec.status}</span>${' '}<code class="code">${rec.code}</code>
    </h2>
    ${message ? html`<div class=${message.error ? 'error note' : 'ok note'} role="status">${message.error ?? message.ok}</div>` : ''}
    ${
      open
        ? html`<div class="actions">
            <${Operator} name=${operator} onChange=${setOperator} />
            <button
              type="button"
              name="replay"
              disabled=${busy || !operator || !!pending}
              onClick=${() => setPending('replay')}
            >
              Replay…
            </button>
            <button
              type="button"
              name="discard"
              class="danger"
              disabled=${busy || !operator || !!pending}
              onClick=${() => setPending('discard')}
            >
              Discard…
            </button>
            ${
              pending
                ? html`<div class="confirm note" role="alertdialog" data-action=${pending}>
                    <span>${ASK[pending]}</span>
                    <button
                      type="button"
                      name="confirm"
                      class=${pending === 'discard' ? 'danger' : ''}
                      disabled=${busy}
                      onClick=${act}
                    >
                      ${pending === 'replay' ? 'Replay now' : 'Discard'}
                    </button>
                    <button type="button" class="secondary" disabled=${busy} onClick=${() => setPending(undefined)}>
                      Cancel
                    </button>
                  </div>`
                : ''
            }
          </div>`
        : ''
    }
    <table class="facts">
      <tbody>
        <tr data-fact="route">
          <th>route</th>
          <td>
            <a href=${`#/routes/${encodeURIComponent(rec.route)}`}>${rec.route}</a>
            ${rec.routeVersion ? html` <span class="muted">version</span> <code>${rec.routeVersion}</code>` : ''}
          </td>
        </tr>
        <tr data-fact="source">
          <th>source</th>
          <td>${rec.source}</td>
        </tr>
        <tr data-fact="status">
          <th>status</th>
          <td>
            ${rec.status}${rec.settledBy ? html` <span class="muted">by</span> <b>${rec.settledBy}</b>` : ''}${rec.settledAt ? html` <span class="muted">at ${fmtDateTime(rec.settledAt)}</span>` : ''}
          </td>
        </tr>
        <tr data-fact="code">
          <th>code</th>
          <td><code>${rec.code}</code></td>
        </tr>
        <tr data-fact="detail">
          <th>detail</th>
          <td>${rec.detail ?? ''}</td>
        </tr>
        <tr data-fact="cause">
          <th>cause</th>
          <td>${rec.cause ? html`<pre>${rec.cause}</pre>` : ''}</td>
        </tr>
        <tr data-fact="attempts">
          <th>attempts</th>
          <td>${rec.attempts}</td>
        </tr>
        <tr data-fact="firstAt">
          <th>first failed</th>
          <td>${fmtDateTime(rec.firstAt)}</td>
        </tr>
        <tr data-fact="lastAt">
          <th>last failed</th>
          <td>${fmtDateTime(rec.lastAt)}</td>
        </tr>
        <tr data-fact="correlationId">
          <th>correlation id</th>
          <td>
            ${rec.correlationId ? html`<a href=${`#/exchanges?correlationId=${encodeURIComponent(rec.correlationId)}`}><code>${rec.correlationId}</code></a>` : ''}
          </td>
        </tr>
        <tr data-fact="traceId">
          <th>trace id</th>
          <td><code>${rec.traceId ?? ''}</code></td>
        </tr>
        <tr data-fact="id">
          <th>record id</th>
          <td><code>${rec.id}</code></td>
        </tr>
      </tbody>
    </table>
    <section>
      <h3>Headers</h3>
      <pre class="headers">${pretty(rec.headers ?? {})}</pre>
    </section>
    <section>
      <h3>Body</h3>
      ${rec.body === undefined || rec.body === null ? html`<p class="muted">No body.</p>` : html`<pre class="body">${pretty(rec.body)}</pre>`}
    </section>
    ${
      rec.context && Object.keys(rec.context).length
        ? html`<section>
            <h3>What a replay needs besides the body</h3>
            <pre class="context">${pretty(rec.context)}</pre>
          </section>`
        : ''
    }
    <${FailedHistory} record=${rec.id} fixed=${true} version=${version} />
  </article>`;
}
