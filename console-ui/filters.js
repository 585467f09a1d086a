// The filter form controls the list pages share (Exchanges, Failed, Audit): a text field and a
// choice bound to one key of the page's filters, and the time windows a `since` filter offers.
import { html } from './html.js';

/**
 * A text input for `filters[name]`, trimmed, applied when it changes (on blur or Enter).
 * @template {Record<string, string>} F
 * @param {F} filters
 * @param {(f: F) => void} setFilters
 * @param {string} name
 * @param {string} label
 * @param {string} [placeholder]
 */
export const filterField = (filters, setFilters, name, label, placeholder = 'any') =>
  html`<label
    >${label}
    <input
      name=${name}
      value=${filters[name]}
      placeholder=${placeholder}
      onChange=${(e) => setFilters({ ...filters, [name]: e.currentTarget.value.trim() })}
  /></label>`;

/**
 * A select for `filters[name]` of `[value, text]` options.
 * @template {Record<string, string>} F
 * @param {F} filters
 * @param {(f: F) => void} setFilters
 * @param {string} name
 * @param {string} label
 * @param {[string, string][]} options
 */
export const filterChoice = (filters, setFilters, name, label, options) =>
  html`<label
    >${label}
    <select
      name=${name}
      value=${filters[name]}
      onChange=${(e) => setFilters({ ...filters, [name]: e.currentTarget.value })}
    >
      ${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}
    </select></label
  >`;

const WINDOW_TEXT = {
  '15m': 'last 15 minutes',
  '1h': 'last hour',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
};
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The choices of a time filter: any time, then the given windows (`15m`, `1h`, `24h`, `7d`, `30d`).
 * @param {(keyof typeof WINDOW_TEXT)[]} ids
 * @returns {[string, string][]}
 */
export const timeWindows = (ids) => [
  ['', 'any time'],
  ...ids.map((w) => /** @type {[string, string]} */ ([w, WINDOW_TEXT[w]])),
];

/** `1h` -> the ISO time an hour ago; '' -> undefined (any time) */
export function sinceOf(window) {
  const m = /^(\d+)([mhd])$/.exec(window);
  return m ? new Date(Date.now() - Number(m[1]) * UNIT_MS[m[2]]).toISOString() : undefined;
}
