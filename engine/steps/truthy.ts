// JSONata's notion of a true condition, shared by every step that tests one (choice, loop, fail,
// to-http, `if:` guards) and by route tests' expectations.

/** JSONata-style truthiness: empty strings, 0, empty arrays, null and undefined are false. */
export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(truthy);
  if (v && typeof v === 'object') return Object.keys(v).length > 0;
  return !!v;
}
