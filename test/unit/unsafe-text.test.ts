// The engine's text rule (engine/schemas/schemas.ts): which characters it refuses, the JSON
// pointers it names (keys too), and the `x-raw-text` keyword that lets a field opt out, also
// through $ref, allOf and items.

import { describe, expect, it } from 'vitest';
import { SchemaStore, hasUnsafeText } from '../../engine/schemas/schemas.ts';

describe('hasUnsafeText', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['TAB', 'a\tb'],
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['DEL', 'a\u007fb'],
    ['C1 U+0080', '\u0080'],
    ['C1 U+009F', 'a\u009f'],
    ['U+202A', '\u202a'],
    ['U+202E', 'x\u202ey'],
    ['U+2066', '\u2066'],
    ['U+2069', '\u2069'],
    // format characters (Cf), invisible: they split a name so screening no longer matches it
    ['U+200B zero width space', 'Pet\u200brov'],
    ['U+200C zero width non-joiner', 'a\u200cb'],
    ['U+200D zero width joiner (also in emoji sequences)', '👨\u200d👩'],
    ['U+FEFF byte order mark', '\ufeffPetrov'],
    ['U+00AD soft hyphen', 'Pet\u00adrov'],
    ['U+2060 word joiner', 'a\u2060b'],
    ['U+E0001 language tag', 'a\u{e0001}'],
    // bidi controls, all Cf too
    ['U+061C Arabic letter mark', 'a\u061cb'],
    ['U+200E left-to-right mark', 'a\u200eb'],
    ['U+200F right-to-left mark', 'a\u200fb'],
    // line and paragraph separators (Zl, Zp)
    ['U+2028', 'a\u2028b'],
    ['U+2029', 'a\u2029b'],
    ['lone high surrogate', 'a\ud800'],
    ['lone high surrogate before text', '\ud83dx'],
    ['lone low surrogate', '\udc00a'],
    ['reversed pair', '\ude00\ud83d'],
  ])('refuses %s', (_what, s) => {
    expect(hasUnsafeText(s)).toBe(true);
    expect(hasUnsafeText({ a: [{ b: s }] })).toBe(true);
    expect(hasUnsafeText({ [s]: 1 })).toBe(true);
  });

  it.each([
    ['plain', 'Jane Doe'],
    ['accents', 'Zoë Nuñez'],
    ['emoji (a surrogate pair)', '😀'],
    ['Hebrew', 'עברית'],
    ['U+00A0', 'a\u00a0b'],
    ['Arabic', 'محمد'],
    ['Devanagari', 'नमस्ते'],
    ['CJK', '王小明'],
    ['emoji outside the BMP', '𝒜😀'],
    ['empty', ''],
  ])('accepts %s', (_what, s) => {
    expect(hasUnsafeText({ a: [s, 1, null, true, { b: s }] })).toBe(false);
  });

  it('finds an unsafe key among keys seen safe before, however many', () => {
    // the safe keys are remembered (a bounded set): more of them than it holds, then a bad one
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field${i}`, 'ok']));
    expect(hasUnsafeText([many, many])).toBe(false);
    expect(hasUnsafeText([many, { ...many, ['field7\u202e']: 'ok' }])).toBe(true);
    expect(hasUnsafeText({ entries: [{ a: 1 }, { a: 1, ['b\u0000']: 1 }] })).toBe(true);
  });

  it('walks values deeper than the call stack without overflowing', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(hasUnsafeText(deep)).toBe(true);
    const errors = new SchemaStore().unsafeTextErrors(deep, {});
    expect(errors?.[0].field).toBe('/0'.repeat(200_000));
  });
});

describe('SchemaStore.unsafeTextErrors', () => {
  const store = new SchemaStore();

  it('names every field, keys included, as JSON pointers', () => {
    const errors = store.unsafeTextErrors(
      { a: { 'b/c~d': 'x\n' }, list: ['ok', 'y\u202e'], ['k\u0000']: 1 },
      {},
      '/query',
    );
    expect(errors?.map((e) => e.field).sort()).toEqual(['/query/a/b~1c~0d', '/query/k\u0000', '/query/list/1'].sort());
    expect(store.unsafeTextErrors({ a: 'clean' }, {})).toBeUndefined();
  });

  it('x-raw-text opts a field and everything below it out, through $ref, allOf and items', () => {
    const schema = {
      $id: 'urn:test:raw-text',
      type: 'object',
      properties: {
        free: { type: 'string', 'x-raw-text': true },
        blob: { type: 'object', 'x-raw-text': true },
        viaRef: { $ref: '#/$defs/raw' },
        viaAllOf: { allOf: [{ type: 'string' }, { 'x-raw-text': true }] },
        list: { type: 'array', items: { $ref: '#/$defs/raw' } },
        checked: { type: 'string' },
      },
      $defs: { raw: { type: 'string', 'x-raw-text': true } },
    };
    const { validate } = store.compileInline(schema);
    const data = {
      free: 'a\r\n',
      blob: { deep: ['\u0000'] },
      viaRef: '\u202e',
      viaAllOf: '\t',
      list: ['\n', '\r'],
      checked: 'b\r\n',
    };
    expect(validate(data)).toBe(true);
    expect(store.unsafeTextErrors(data, schema)).toEqual([
      { field: '/checked', message: expect.stringMatching(/control, invisible or bidirectional/) },
    ]);
  });
});
