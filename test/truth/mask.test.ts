// The masking function on its own: credential shapes, literal secrets, bounds.

import { describe, expect, it } from 'vitest';
import { compileSecrets, maskDeep, maskText, MAX_TEXT } from '../../engine/observability/mask.ts';
import { newKey } from '../../engine/gateway/keys.ts';

describe('maskText', () => {
  it('masks bearer tokens, bare JWTs and subscription keys inside free text', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl';
    const key = newKey();
    const out = maskText(`denied for Bearer opaque-token-123456 (jwt ${jwt}, key ${key})`);
    expect(out).toBe(`denied for Bearer opaq**** (jwt eyJh****, key ${key.slice(0, 4)}****)`);
  });

  it('masks literal secrets and leaves other text alone', () => {
    expect(maskText('client key s3cr3t-value refused', compileSecrets(['s3cr3t-value']))).toBe(
      'client key s3cr**** refused',
    );
    // whatever follows "Bearer" is taken for a token: the safe side
    expect(maskText('Bearer tokens expire; the eye sees')).toBe('Bearer toke**** expire; the eye sees');
    expect(maskText('order already cancelled')).toBe('order already cancelled');
  });

  it('bounds the length, masking before it cuts', () => {
    const jwt = `eyJ${'a'.repeat(40)}.${'b'.repeat(40)}.${'c'.repeat(40)}`;
    expect(maskText('y'.repeat(MAX_TEXT - 10) + jwt)).toBe('y'.repeat(MAX_TEXT - 10) + 'eyJa****');
    expect(maskText('y'.repeat(MAX_TEXT - 4) + jwt)).toBe('y'.repeat(MAX_TEXT - 4) + 'eyJa…');
    expect(maskText('z'.repeat(100_000)).length).toBe(MAX_TEXT + 1);
  });

  it('masking twice changes nothing', () => {
    const once = maskText('Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2ln and gk_abcdefghijklmnopqrstuvwxyz');
    expect(once).toBe('Bearer eyJh**** and gk_a****');
    expect(maskText(once)).toBe(once);
  });
});

describe('maskDeep', () => {
  it('masks every string of a parsed body', () => {
    expect(maskDeep({ error: { details: [{ message: 'bad Bearer abcdefghijk', code: 7 }] } })).toEqual({
      error: { details: [{ message: 'bad Bearer abcd****', code: 7 }] },
    });
  });
});
