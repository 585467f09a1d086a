// HttpClients.redirect, the hook route tests use to send a target's calls to its stub: the
// origin is replaced, the path and query are kept, and an unanswered target goes where it went.
import { describe, it, expect } from 'vitest';
import { HttpClients, redirectUrl } from '../../engine/outbound/http-client.ts';

describe('redirectUrl', () => {
  const to = (target: string) => (target === 'hub' ? 'http://127.0.0.1:4000/' : undefined);

  it('replaces the origin the target would call, keeping path and query', () => {
    const asked: string[] = [];
    const url = redirectUrl('https://Hub.Example:443/v1/orders/A%2F1?x=1&y=2', 'hub', (t, o) => {
      asked.push(`${t} ${o}`);
      return to(t);
    });
    expect(url).toBe('http://127.0.0.1:4000/v1/orders/A%2F1?x=1&y=2');
    expect(asked).toEqual(['hub https://hub.example']);
  });

  it('leaves the URL alone when the hook answers nothing', () => {
    expect(redirectUrl('http://vendor:8080/a?b=c', 'other', to)).toBe('http://vendor:8080/a?b=c');
  });

  it('is an optional, mutable property of HttpClients, unset by default', () => {
    const clients = new HttpClients();
    expect(clients.redirect).toBeUndefined();
    clients.redirect = to;
    expect(clients.redirect('hub', 'http://x')).toBe('http://127.0.0.1:4000/');
  });
});
