// CloudEvents 1.0 structured-mode checks: the required context attributes, the types of the
// optional ones, and attribute naming (lower-case letters and digits only, spec section 3.1.1),
// so an engine that puts `asb.event.version` at top level is told so rather than accepted.

export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  [attribute: string]: unknown;
}

export interface EventProblem {
  /** JSON pointer into the request body */
  pointer: string;
  detail: string;
}

const NAME = /^[a-z0-9]{1,20}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const OPTIONAL_STRINGS = ['datacontenttype', 'dataschema', 'subject'];

/** Problems of one event; [] when valid. `at` prefixes the pointers (batch index). */
export function checkCloudEvent(e: unknown, at = ''): EventProblem[] {
  if (typeof e !== 'object' || e === null || Array.isArray(e))
    return [{ pointer: at || '/', detail: 'an event must be a JSON object' }];
  const ev = e as Record<string, unknown>;
  const out: EventProblem[] = [];
  if (ev.specversion !== '1.0') out.push({ pointer: `${at}/specversion`, detail: 'specversion must be "1.0"' });
  for (const k of ['id', 'source', 'type']) {
    if (typeof ev[k] !== 'string' || ev[k] === '')
      out.push({ pointer: `${at}/${k}`, detail: `${k} is required and must be a non-empty string` });
  }
  for (const k of OPTIONAL_STRINGS) {
    if (ev[k] !== undefined && typeof ev[k] !== 'string')
      out.push({ pointer: `${at}/${k}`, detail: `${k} must be a string` });
  }
  if (
    ev.time !== undefined &&
    !(typeof ev.time === 'string' && RFC3339.test(ev.time) && !Number.isNaN(Date.parse(ev.time)))
  ) {
    out.push({ pointer: `${at}/time`, detail: 'time must be an RFC 3339 timestamp' });
  }
  if (ev.data !== undefined && ev.data_base64 !== undefined)
    out.push({ pointer: `${at}/data_base64`, detail: 'data and data_base64 are exclusive' });
  for (const k of Object.keys(ev)) {
    if (k !== 'data' && k !== 'data_base64' && !NAME.test(k)) {
      out.push({
        pointer: `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        detail: `attribute name '${k}' must be 1-20 lower-case letters or digits`,
      });
    }
  }
  return out;
}
