// Compares what a documented command printed with the answer the document shows.

/** Why `actual` does not contain `expected` (see docs.test.ts for the rules), or undefined. */
export function jsonMismatch(expected: unknown, actual: unknown, path = ''): string | undefined {
  if (expected === '...') return actual === undefined ? `${path || '/'}: missing` : undefined;
  if (typeof expected === 'string' && expected.endsWith('...')) {
    const prefix = expected.slice(0, -3);
    return typeof actual === 'string' && actual.startsWith(prefix)
      ? undefined
      : `${path || '/'}: expected a string starting ${JSON.stringify(prefix)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path || '/'}: expected an array, got ${JSON.stringify(actual)}`;
    if (expected.length === 0)
      return actual.length === 0 ? undefined : `${path || '/'}: expected [], got ${actual.length} item(s)`;
    // each expected item matches a later actual item, in order
    let j = 0;
    for (let i = 0; i < expected.length; i++) {
      while (j < actual.length && jsonMismatch(expected[i], actual[j], `${path}/${j}`)) j++;
      if (j === actual.length) {
        const why = actual.length
          ? jsonMismatch(
              expected[i],
              actual[Math.min(i, actual.length - 1)],
              `${path}/${Math.min(i, actual.length - 1)}`,
            )
          : 'empty array';
        return `${path}/${i}: no item matches ${JSON.stringify(expected[i])} (${why})`;
      }
      j++;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return `${path || '/'}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      if (!(k in (actual as object))) return `${path}/${k}: missing`;
      const why = jsonMismatch(v, (actual as Record<string, unknown>)[k], `${path}/${k}`);
      if (why) return why;
    }
    return undefined;
  }
  return Object.is(expected, actual)
    ? undefined
    : `${path || '/'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** The last JSON document in a command's output (one-line JSON, or a pretty-printed tail). */
export function lastJson(output: string): unknown {
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = lines[i].trim();
    if (!t.startsWith('{') && !t.startsWith('[')) continue;
    for (const candidate of [t, lines.slice(i).join('\n')]) {
      try {
        return JSON.parse(candidate);
      } catch {
        /* try the next */
      }
    }
  }
  return undefined;
}

function linePattern(expected: string): RegExp {
  const parts = expected
    .trim()
    .split('...')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

/** Each expected line matches an output line, in order; `...` stands for any text. */
export function linesMismatch(expected: string[], output: string): string | undefined {
  const actual = output.split('\n').map((l) => l.trim());
  let j = 0;
  for (const e of expected) {
    const re = linePattern(e);
    while (j < actual.length && !re.test(actual[j])) j++;
    if (j === actual.length) return `no output line (in order) matches: ${e}`;
    j++;
  }
  return undefined;
}
