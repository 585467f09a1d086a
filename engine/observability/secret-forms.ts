// The forms a secret takes when a vendor, a library or a log statement copies it into text: in
// any letter case (the search folds case, secret-search.ts); percent-encoded as
// encodeURIComponent, encodeURI, RFC 3986 and HTML forms (`+` for a space) encode it, in either
// hex case; JSON-escaped; in hex; and in Base64, standard or URL-safe, padded or not, also
// percent-encoded, at each of the three byte alignments: `Basic base64(id:secret)` starts the
// secret in the middle of a Base64 group. Computed when the secrets are registered (load time),
// never per masked text.

/** Shortest secret masked, and shortest form of one: masking every `abc` would hide more than it protects. */
export const MIN_SECRET = 6;

export interface SecretForm {
  /** the literal text of the form */
  text: string;
  /** a Base64 core: the characters finishing its group (and padding) are masked with it */
  base64: boolean;
}

const hex = (c: string): string => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');

/** The percent-encodings of the encoders in use; a lone surrogate cannot be encoded: none. */
function percentForms(s: string): string[] {
  try {
    const component = encodeURIComponent(s);
    return [
      component,
      encodeURI(s),
      component.replace(/[!'()*]/g, hex),
      // HTML forms (URLSearchParams): `+` for a space, `~!'()` encoded, `*` not
      component.replace(/[~!'()]/g, hex).replace(/%20/g, '+'),
      component.replace(/%20/g, '+'),
    ];
  } catch {
    return [];
  }
}

/**
 * The secret's Base64 at byte offsets 0, 1 and 2 of a longer encoded text, without the characters
 * that also depend on the bytes around it: what stays the same wherever the secret sits.
 */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    out.push(b64.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  return out;
}

/** Every form of `secret` to mask; none for a secret shorter than MIN_SECRET. */
export function secretForms(secret: string): SecretForm[] {
  if (secret.length < MIN_SECRET) return [];
  const bytes = Buffer.from(secret, 'utf8');
  const json = JSON.stringify(secret).slice(1, -1);
  const text = [secret, ...percentForms(secret), json, json.replace(/\//g, '\\/'), bytes.toString('hex')];
  const cores = base64Cores(bytes).flatMap((c) => [
    c,
    c.replace(/\+/g, '-').replace(/\//g, '_'),
    c.replace(/\+/g, '%2B').replace(/\//g, '%2F'),
  ]);
  const forms = new Map<string, SecretForm>();
  for (const t of text) forms.set(t, { text: t, base64: false });
  for (const t of cores) if (!forms.has(t)) forms.set(t, { text: t, base64: true });
  return [...forms.values()].filter((f) => f.text.length >= MIN_SECRET);
}
