// The forms in which a secret leaks into text, as an attacker or a careless vendor writes them:
// each must be masked wherever the engine masks the secret itself.

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export function leakedForms(secret: string): [name: string, text: string][] {
  return [
    ['exact', secret],
    ['upper-cased', secret.toUpperCase()],
    ['lower-cased', secret.toLowerCase()],
    ['Base64', b64(secret)],
    ['Base64 without padding', b64(secret).replace(/=+$/, '')],
    ['Base64url', Buffer.from(secret, 'utf8').toString('base64url')],
    // `Basic base64(id:secret)`: ids of 3, 4 and 5 bytes put the secret at each byte alignment
    ['Basic, alignment 0', `Basic ${b64(`ab:${secret}`)}`],
    ['Basic, alignment 1', `Basic ${b64(`org:${secret}`)}`],
    ['Basic, alignment 2', `Basic ${b64(`org1:${secret}`)}`],
    ['URL-encoded', encodeURIComponent(secret)],
    ['URL-encoded, lower-case hex', encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['form-encoded (+ for space)', new URLSearchParams({ k: secret }).toString().slice(2)],
    ['hex', Buffer.from(secret, 'utf8').toString('hex')],
    ['hex, upper case', Buffer.from(secret, 'utf8').toString('hex').toUpperCase()],
  ];
}

/**
 * A piece from the middle of a leaked form: what must not survive masking (a masked form keeps its first 4
 * characters).
 */
export const middleOf = (text: string): string =>
  text.slice(Math.floor(text.length / 2) - 5, Math.floor(text.length / 2) + 5);
