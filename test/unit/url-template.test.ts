// Path parameters are URL-encoded segments: no value, `.` and `..` included, can reach another
// vendor path or host. Checked on the template and on the path the HTTP client sends.

import { describe, it, expect } from 'vitest';
import { compileUrlTemplate, encodeSegment } from '../../engine/outbound/url-template.ts';
import { splitUrl } from '../../engine/outbound/http-client.ts';

const t = compileUrlTemplate('http://vendor.test:8080/v1/accounts/{id}/balance');
const sent = (id: string) => splitUrl(t.expand({ id }));

describe('url templates', () => {
  it('a `.` or `..` value is refused, naming the parameter: `%2E%2E` would still read as `..`', () => {
    expect(() => encodeSegment('.', 'id')).toThrow("path parameter 'id' must not be '.'");
    expect(() => t.expand({ id: '..' })).toThrow("path parameter 'id' must not be '..'");
    expect(() => sent('.')).toThrow("'id'");
    // WHATWG URL (and normalizing servers) collapse the encoded form: why encoding is not enough
    expect(new URL('http://h/v1/a/%2E%2E/b').pathname).toBe('/v1/b');
  });

  it('slashes, queries and host changes stay inside the segment', () => {
    expect(sent('../../admin')?.path).toBe('/v1/accounts/..%2F..%2Fadmin/balance');
    expect(sent('x?admin=1#f')?.path).toBe('/v1/accounts/x%3Fadmin%3D1%23f/balance');
    expect(sent('@evil.test')).toEqual({
      origin: 'http://vendor.test:8080',
      path: '/v1/accounts/%40evil.test/balance',
    });
    // dots inside a longer value are plain characters
    expect(sent('a..b')?.path).toBe('/v1/accounts/a..b/balance');
  });

  it('a missing parameter is an error naming it', () => {
    expect(() => t.expand({})).toThrow("path parameter 'id' has no value");
    expect(t.names).toEqual(['id']);
  });
});
