// Where a step puts its result: `body` (default), `vars.<name>` or `status`.

import type { Exchange } from './exchange.ts';

export type Setter = (ex: Exchange, value: unknown) => void;

export const TARGET_PATTERN = '^(body|status|vars\\.[A-Za-z_][A-Za-z0-9_]*)$';

export function compileTarget(into: string | undefined): Setter {
  if (!into || into === 'body')
    return (ex, v) => {
      ex.body = v;
    };
  if (into === 'status')
    return (ex, v) => {
      ex.status = Number(v);
    };
  const name = into.slice('vars.'.length);
  return (ex, v) => {
    ex.vars[name] = v;
  };
}
