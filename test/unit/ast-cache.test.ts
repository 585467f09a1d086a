// The parse cache of JSONata expressions (engine/expressions/ast-cache.ts): an expression the fast
// path compiled is compiled by later processes from its stored tree without calling jsonata, never
// for another text or from a file it cannot trust; errors and expressions JSONata evaluates itself
// are parsed each time, as before.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** jsonata() calls by source text. */
const parses = vi.hoisted(() => new Map<string, number>());
vi.mock('jsonata', async (original) => {
  const real = (await original<{ default: typeof import('jsonata') }>()).default;
  const counting = (source: string, options?: Parameters<typeof real>[1]) => {
    parses.set(source, (parses.get(source) ?? 0) + 1);
    return real(source, options);
  };
  return { default: counting };
});

type Modules = {
  compileExpression: typeof import('../../engine/expressions/expressions.ts').compileExpression;
  ast: typeof import('../../engine/expressions/ast-cache.ts');
};

let current: { write(): void; setCacheFolder(dir: string | undefined): void } | undefined;
const dirs: string[] = [];
afterEach(() => {
  current?.setCacheFolder(undefined);
  current = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ast-cache-'));
  dirs.push(dir);
  return dir;
}

/**
 * A new process as far as the cache goes: what the previous one learnt is written, and the
 * expression modules are loaded afresh (none of the previous one's compiled expressions is kept).
 */
async function nextProcess(cache: string | undefined): Promise<Modules> {
  current?.write();
  current?.setCacheFolder(undefined);
  vi.resetModules();
  const disk = await import('../../engine/core/disk-cache.ts');
  const ast = await import('../../engine/expressions/ast-cache.ts');
  const { compileExpression } = await import('../../engine/expressions/expressions.ts');
  disk.setCacheFolder(cache);
  current = { write: ast.writeAstCache, setCacheFolder: disk.setCacheFolder };
  return { compileExpression, ast };
}

/** How often jsonata parsed `source` while `f` ran. */
async function parsesOf<T>(source: string, f: () => T | Promise<T>): Promise<{ n: number; value: T }> {
  const before = parses.get(source) ?? 0;
  const value = await f();
  return { n: (parses.get(source) ?? 0) - before, value };
}

const RATE = "{ 'rate': body.rate * 2, 'pair': body.buy & '/' & body.sell, 'ok': $exists(body.rate) }";
const INPUT = { body: { rate: 1.5, buy: 'EUR', sell: 'USD' } };

describe('the JSONata parse cache', () => {
  it('gives a later process the fast form of an unchanged expression without parsing it', async () => {
    const cache = join(tmp(), 'cache');
    const first = await nextProcess(cache);
    const a = await parsesOf(RATE, () => first.compileExpression(RATE).evaluate(INPUT));
    expect(a.n).toBe(1);
    expect(a.value).toEqual({ rate: 3, pair: 'EUR/USD', ok: true });
    const second = await nextProcess(cache);
    const b = await parsesOf(RATE, () => {
      const e = second.compileExpression(RATE);
      expect(e.fast).toBe(true);
      return e.evaluate(INPUT);
    });
    expect(b.n).toBe(0);
    expect(b.value).toEqual(a.value);
    // without the cache every process parses
    const off = await nextProcess(undefined);
    expect((await parsesOf(RATE, () => off.compileExpression(RATE))).n).toBe(1);
  });

  it('never serves the tree of another text: an edited expression is parsed again', async () => {
    const cache = join(tmp(), 'cache');
    const first = await nextProcess(cache);
    first.compileExpression(RATE);
    const second = await nextProcess(cache);
    const edited = RATE.replace('* 2', '* 3');
    const r = await parsesOf(edited, () => second.compileExpression(edited).evaluate(INPUT));
    expect(r.n).toBe(1);
    expect(r.value).toMatchObject({ rate: 4.5 });
  });

  it('keeps one tree for any limits, and the limits an expression is compiled with hold', async () => {
    const cache = join(tmp(), 'cache');
    const src = '$count([1..body.n])';
    const first = await nextProcess(cache);
    expect(first.compileExpression(src).evaluate({ body: { n: 50 } })).toBe(50);
    const second = await nextProcess(cache);
    const small = await parsesOf(src, () => second.compileExpression(src, [], { maxRange: 10, where: 'the test' }));
    expect(small.n).toBe(0);
    expect(() => small.value.evaluate({ body: { n: 50 } })).toThrow(/a range has more than 10 items/);
  });

  it('reads a regex literal back as the same pattern and flags', async () => {
    const cache = join(tmp(), 'cache');
    const src = '$contains(body.iban, /^de[0-9]{2}\\s/i) ? "DE" : "other"';
    const first = await nextProcess(cache);
    expect(first.compileExpression(src).fast).toBe(true);
    const second = await nextProcess(cache);
    const r = await parsesOf(src, () => {
      const e = second.compileExpression(src);
      return [e.evaluate({ body: { iban: 'DE89 3704' } }), e.evaluate({ body: { iban: 'FR76 3000' } })];
    });
    expect(r.n).toBe(0);
    expect(r.value).toEqual(['DE', 'other']);
  });

  it('parses a syntax error each time, and reports it at its place', async () => {
    const cache = join(tmp(), 'cache');
    const src = 'body.a +';
    const problem = (m: Modules) => {
      try {
        m.compileExpression(src, ['steps', 0, 'set-body']);
      } catch (e) {
        const err = e as import('../../engine/core/diagnostics.ts').ConfigError;
        return { name: err.name, message: err.message, path: err.path };
      }
      return undefined;
    };
    const first = problem(await nextProcess(cache));
    expect(first).toMatchObject({ name: 'ConfigError', path: ['steps', 0, 'set-body'] });
    expect(first!.message).toMatch(/^JSONata: .* at character \d+$/);
    const second = await nextProcess(cache);
    const again = await parsesOf(src, () => problem(second));
    expect(again).toEqual({ n: 1, value: first });
  });

  it('parses each time an expression JSONata evaluates itself, and refuses a tree with shared parts', async () => {
    const cache = join(tmp(), 'cache');
    // `%` (parent): not on the fast path, and its tree shares its ancestry slots between nodes
    const src = 'body.orders.items.{ "order": %.id, "sku": sku }';
    const input = { body: { orders: [{ id: 'o1', items: [{ sku: 'a' }] }] } };
    const first = await nextProcess(cache);
    expect(first.compileExpression(src).fast).toBe(false);
    const jsonata = (await import('jsonata')).default;
    expect(first.ast.encodeAst(jsonata(src).ast())).toBeUndefined();
    const second = await nextProcess(cache);
    const r = await parsesOf(src, () => second.compileExpression(src).evaluate(input));
    expect(r.n).toBe(1);
    expect(r.value).toEqual({ order: 'o1', sku: 'a' });
  });

  it('reads nothing from a damaged file, one of another jsonata, or one others could have written', async () => {
    const cache = join(tmp(), 'cache');
    const file = join(cache, 'jsonata-asts.json');
    (await nextProcess(cache)).compileExpression(RATE);
    current!.write();
    const good = readFileSync(file, 'utf8');
    const [head, body] = [good.slice(0, good.indexOf('\n')), good.slice(good.indexOf('\n') + 1)];
    // the key `rate` of the stored tree, as it is written in the entry's text
    const poison = (b: string) => b.replaceAll('\\"rate\\"', '\\"evil\\"');
    expect(poison(body)).not.toBe(body);
    const sum = (b: string) => createHash('sha256').update(b).digest('base64url');
    const withSum = (b: string) => `${head.replace(/"sha256":"[^"]+"/, `"sha256":"${sum(b)}"`)}\n${b}`;
    /** What a process with this cache file gets for RATE, and whether it parsed it. */
    const run = async (text: string, mode = 0o600) => {
      const m = await nextProcess(undefined);
      writeFileSync(file, text);
      chmodSync(file, mode);
      current!.setCacheFolder(cache);
      const r = await parsesOf(RATE, () => m.compileExpression(RATE).evaluate(INPUT));
      return { parsed: r.n === 1, value: r.value };
    };
    const right = { rate: 3, pair: 'EUR/USD', ok: true };
    expect(await run(good)).toEqual({ parsed: false, value: right });
    // a tree changed without its checksum
    expect(await run(`${head}\n${poison(body)}`)).toEqual({ parsed: true, value: right });
    // another jsonata version parsed it
    const older = head.replace(/"parser":"jsonata [^ ]+/, '"parser":"jsonata 0.0.0');
    expect(older).not.toBe(head);
    expect(await run(`${older}\n${body}`)).toEqual({ parsed: true, value: right });
    if (process.platform !== 'win32') {
      // a poisoned tree with a checksum that holds, in a file others may write (the same file
      // written by the user alone is trusted: the checksum finds damage, it is no signature)
      expect(await run(withSum(poison(body)), 0o666)).toEqual({ parsed: true, value: right });
      // (`rate` became `evil` everywhere: a field of another name, not there)
      expect(await run(withSum(poison(body)))).toEqual({ parsed: false, value: { pair: 'EUR/USD', ok: false } });
    }
    expect(await run('not json')).toEqual({ parsed: true, value: right });
    expect(await run(good)).toEqual({ parsed: false, value: right });
  });

  it('parses an expression whose stored tree the fast path does not take', async () => {
    const cache = join(tmp(), 'cache');
    const file = join(cache, 'jsonata-asts.json');
    const first = await nextProcess(cache);
    first.compileExpression(RATE);
    current!.write();
    // the entry of RATE holds a tree only JSONata evaluates (a transform): as if written by an
    // engine whose fast path took more than this one's
    const good = readFileSync(file, 'utf8');
    const entries = JSON.parse(good.slice(good.indexOf('\n') + 1)) as Record<string, { t: number; j: string }>;
    const jsonata = (await import('jsonata')).default;
    const other = first.ast.encodeAst(jsonata('body ~> |$|{"rate": 0}|').ast());
    expect(other).toBeDefined();
    for (const e of Object.values(entries)) e.j = other!;
    const body = JSON.stringify(entries);
    const head = good
      .slice(0, good.indexOf('\n'))
      .replace(/"sha256":"[^"]+"/, `"sha256":"${createHash('sha256').update(body).digest('base64url')}"`);
    writeFileSync(file, `${head}\n${body}`);
    const second = await nextProcess(cache);
    const r = await parsesOf(RATE, () => second.compileExpression(RATE).evaluate(INPUT));
    expect(r).toEqual({ n: 1, value: { rate: 3, pair: 'EUR/USD', ok: true } });
  });
});
