// Who is acting: the operator's name, asked once and kept in this browser's localStorage, sent as
// `x-console-user` with every replay and discard so the audit says who did it. The console has no
// login of its own (docs/console.md#protection): the name is the operator's word, like `--as`.
import { useState } from 'preact/hooks';
import { html } from './html.js';

const KEY = 'engine-console.operator';
/** A header value: printable Latin-1 (what fetch can send), not blank, at most 64 characters. */
const VALID = /^[\x20-\x7e\u00a0-\u00ff]{1,64}$/;

/** The stored name, or '' when none was given yet. */
export function operatorName() {
  try {
    return localStorage.getItem(KEY) ?? '';
  } catch {
    return ''; // storage refused (a locked-down browser profile): asked again
  }
}

/** The headers of a change made by this operator. */
export const operatorHeaders = (name) => ({ 'x-console-user': name });

/**
 * The name's form when none is stored (or while changing it), else "acting as <name>".
 * @param {{ name: string, onChange: (name: string) => void }} props
 */
export function Operator({ name, onChange }) {
  const [editing, setEditing] = useState(!name);
  const [draft, setDraft] = useState(name);
  const [error, setError] = useState('');
  if (!editing)
    return html`<p class="operator muted">
      acting as <b data-operator=${name}>${name}</b>${' '}<button
        type="button"
        class="link"
        onClick=${() => setEditing(true)}
      >
        change
      </button>
    </p>`;
  const save = (e) => {
    e.preventDefault();
    const v = draft.trim();
    if (!VALID.test(v)) {
      setError('1 to 64 characters, Latin letters (it is sent as an HTTP header)');
      return;
    }
    try {
      localStorage.setItem(KEY, v);
    } catch {
      // kept for this page only
    }
    setError('');
    setEditing(false);
    onChange(v);
  };
  return html`<form class="operator filters" onSubmit=${save}>
    <label
      >your name, written to the audit of every replay and discard
      <input name="operator" value=${draft} onInput=${(e) => setDraft(e.currentTarget.value)} autocomplete="name"
    /></label>
    <button type="submit">Save</button>
    ${error ? html`<span class="error">${error}</span>` : ''}
  </form>`;
}
