// Every form of a registered secret is masked, not only the exact one (issue 24, finding 9):
// upper- and lower-cased, Base64 (standard, URL-safe, with or without padding, inside
// `Basic base64(id:secret)` at each byte alignment), URL-encoded and hex. maskText on its own,
// then the logger (message, fields, errors, child loggers) writing to a stream.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { compileSecrets, maskText, NO_SECRETS } from '../../engine/observability/mask.ts';
import { createLogger, setLogSecrets } from '../../engine/observability/logger.ts';
import { leakedForms, middleOf } from '../helpers/leaked-forms.ts';

// a space, `/`, `+`, `&` and `=`: its URL-encoded forms differ from it; capitals: so do its cased ones
const KEY = 'Ach Client/Key+2026&x=7';
const SECRETS = compileSecrets([KEY]);

describe('maskText masks every form of a secret', () => {
  it.each(leakedForms(KEY))('%s', (_name, form) => {
    const out = maskText(`vendor said: ${form} (refused)`, SECRETS);
    expect(out).not.toContain(form);
    expect(out).not.toContain(middleOf(form));
    // the masked form keeps its first characters, and the text around it is left alone
    expect(out).toMatch(/^vendor said: .{0,20}\*{4}[^ ]{0,6} \(refused\)$/);
    expect(maskText(out, SECRETS)).toBe(out);
  });

  it('leaves other text, and secrets shorter than 6 characters, alone', () => {
    const body = JSON.stringify({
      name: 'Viktor Petrov',
      iban: 'DE89370400440532013000',
      note: Buffer.from('nothing to see').toString('base64'),
    });
    expect(maskText(body, SECRETS, 10_000)).toBe(body);
    expect(compileSecrets(['abc12'])).toBe(NO_SECRETS);
    expect(maskText('code abc12 ABC12', compileSecrets(['abc12']))).toBe('code abc12 ABC12');
  });

  it('masks a secret inside a longer Base64 text from its first whole character to the end of its group', () => {
    const basic = Buffer.from(`org:${KEY}:trailing-data`).toString('base64');
    const out = maskText(`Basic ${basic}`, SECRETS);
    // `org:` and the trailing data are not the secret: only the secret's characters go
    expect(out.startsWith('Basic b3JnO')).toBe(true);
    expect(out).toContain('****');
    expect(out).not.toContain(middleOf(basic));
  });
});

describe('the credentials one call sent, added to the registered secrets', () => {
  const TOKEN = 'caller-Token-0123456789';
  const withToken = SECRETS.with([TOKEN, 'short']);

  it.each(leakedForms(TOKEN))('%s', (_name, form) => {
    const out = maskText(`echo ${form} and ${KEY.toUpperCase()}`, withToken);
    expect(out).not.toContain(form);
    expect(out).not.toContain(middleOf(form));
    expect(out).not.toContain(KEY.toUpperCase());
  });

  it('are compiled once per distinct set; known ones add nothing', () => {
    expect(SECRETS.with([TOKEN, 'short'])).toBe(withToken);
    expect(SECRETS.with([KEY, 'short'])).toBe(SECRETS);
  });
});

describe('the logger masks every form of the secrets registered with it', () => {
  it.each(leakedForms(KEY))('%s: in the message, the fields, an error and a child logger', (_name, form) => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger('info', sink);
    setLogSecrets(log, SECRETS);
    log.info(`vendor said ${form}`);
    log.warn({ detail: `refused: ${form}`, nested: { list: [form] } }, 'exchange failed');
    log.error({ err: new Error(`boom ${form}`) }, 'on-exception handler failed');
    log.child({ component: 'store' }).info({ reason: form }, 'child');
    const out = lines.join('');
    expect(lines).toHaveLength(4);
    expect(out).not.toContain(form);
    expect(out).not.toContain(middleOf(form));
    expect(out.match(/\*{4}/g)!.length).toBeGreaterThanOrEqual(6);
  });
});
