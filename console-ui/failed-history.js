// The audit of failed exchanges: every replay and discard, who asked, when, which records and how it
// ended, newest first; filterable by record (fixed to one on a record's page).
import { useEffect, useState } from 'preact/hooks';
import { html, fmtDateTime } from './html.js';
import { api } from './api.js';

/** ids shown per entry before "and N more" (a bulk replay names every record it acted on) */
const SHOWN = 5;

/**
 * @param {{ record?: string, fixed?: boolean, version: number }} props `version` changes after
 *   each action so the section reloads
 */
export function FailedHistory({ record, fixed, version }) {
  const [filter, setFilter] = useState(record ?? '');
  const [entries, setEntries] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const id = fixed ? (record ?? '') : filter;
  useEffect(() => {
    const q = new URLSearchParams({ limit: '100', ...(id ? { record: id } : {}) });
    let current = true;
    api(`failed/history?${q}`).then(
      (d) => {
        if (!current) return;
        setEntries([...d.entries].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)));
        setError(undefined);
      },
      (e) => current && setError(e.message),
    );
    return () => {
      current = false;
    };
  }, [id, version]);
  return html`<section class="failed-history">
    <h3>History</h3>
    ${
      fixed
        ? ''
        : html`<form class="filters" onSubmit=${(e) => e.preventDefault()}>
            <label
              >record id
              <input
                name="record"
                value=${filter}
                placeholder="any"
                onChange=${(e) => setFilter(e.currentTarget.value.trim())}
            /></label>
          </form>`
    }
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${
      !entries
        ? error
          ? ''
          : html`<p class="muted">Loading…</p>`
        : entries.length === 0
          ? html`<p class="muted">No replay or discard ${id ? 'of this record ' : ''}yet.</p>`
          : html`<table class="list" aria-label="history">
              <thead>
                <tr>
                  <th>time</th>
                  <th>who</th>
                  <th>action</th>
                  <th>records</th>
                  <th>outcome</th>
                  <th>via</th>
                </tr>
              </thead>
              <tbody>
                ${entries.map(
                  (e) =>
                    html`<tr class="audit" data-action=${e.action} data-id=${e.id}>
                      <td>${fmtDateTime(e.at)}</td>
                      <td class="actor">${e.actor}</td>
                      <td>${e.action}</td>
                      <td>
                        ${e.records
                          .slice(0, SHOWN)
                          .map((r) => html`<a href=${`#/failed/${encodeURIComponent(r)}`}><code>${r}</code></a> `)}
                        ${e.records.length > SHOWN ? html`<span class="muted">and ${e.records.length - SHOWN} more</span>` : ''}
                      </td>
                      <td class="outcome">${e.outcome}</td>
                      <td class="muted">${e.via ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }
  </section>`;
}
