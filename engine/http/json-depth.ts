// Nesting depth of a JSON text, checked before it is parsed: deeply nested input (10,000 levels
// of `[`) parses fine but overflows the stack of anything that walks it recursively later
// (JSONata, ajv, JSON.stringify). No recursion, no allocation: a native count of `[` and `{`
// settles most bodies, one pass over the bytes the rest.

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  OPEN_ARRAY = 0x5b,
  OPEN_OBJECT = 0x7b,
  CLOSE_ARRAY = 0x5d,
  CLOSE_OBJECT = 0x7d;

/**
 * True when `text` opens more than `limit` arrays/objects inside one another. A valid text of
 * depth d needs at least 2d characters, so short bodies (most requests) are not scanned at all.
 * The characters looked at are all ASCII, so UTF-8 bytes and strings are scanned alike.
 */
export function jsonDeeperThan(text: Buffer | string, limit: number): boolean {
  if (text.length < 2 * (limit + 1) || fewOpeners(text, limit)) return false;
  return typeof text === 'string' ? deeperString(text, limit) : deeperBytes(text, limit);
}

/**
 * True when the text has at most `limit` `[` and `{` in all (then no nesting can pass the limit).
 * Most request bodies have a few dozen at most, and indexOf finds each natively.
 */
function fewOpeners(t: string | Buffer, limit: number): boolean {
  let count = 0;
  if (typeof t === 'string') {
    for (let i = t.indexOf('['); i >= 0; i = t.indexOf('[', i + 1)) if (++count > limit) return false;
    for (let i = t.indexOf('{'); i >= 0; i = t.indexOf('{', i + 1)) if (++count > limit) return false;
  } else {
    for (let i = t.indexOf(OPEN_ARRAY); i >= 0; i = t.indexOf(OPEN_ARRAY, i + 1)) if (++count > limit) return false;
    for (let i = t.indexOf(OPEN_OBJECT); i >= 0; i = t.indexOf(OPEN_OBJECT, i + 1)) if (++count > limit) return false;
  }
  return true;
}

// two copies of one loop: indexing a Uint8Array and charCodeAt each stay monomorphic (fast)
function deeperBytes(b: Uint8Array, limit: number): boolean {
  let depth = 0;
  for (let i = 0, n = b.length; i < n; i++) {
    const c = b[i];
    if (c === QUOTE) {
      // skip the string; a backslash escapes the next character
      for (i++; i < n; i++) {
        const s = b[i];
        if (s === QUOTE) break;
        if (s === BACKSLASH) i++;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

function deeperString(t: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0, n = t.length; i < n; i++) {
    const c = t.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const s = t.charCodeAt(i);
        if (s === QUOTE) break;
        if (s === BACKSLASH) i++;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
