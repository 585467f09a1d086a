// Preact with htm: components are plain functions returning tagged templates, no JSX build step.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

/** Pretty JSON of a value, or of a JSON text (span events carry bodies as text). */
export function pretty(v) {
  if (typeof v === 'string') {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2);
}

export const fmtMs = (ms) =>
  ms === undefined || ms === null
    ? '–'
    : ms >= 1000
      ? `${(ms / 1000).toFixed(2)} s`
      : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
export const fmtTime = (epoch) => new Date(epoch).toLocaleTimeString();
/** Date and time (failed records and audit entries span days), from epoch ms or an ISO text. */
export const fmtDateTime = (t) => (t === undefined || t === null ? '–' : new Date(t).toLocaleString());
