import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { loadValues, flatten } from '../../engine/config/values.ts';
import { resolvePlaceholders } from '../../engine/config/placeholders.ts';
import { parseYamlFile } from '../../engine/core/yaml-source.ts';
import { DiagnosticError } from '../../engine/core/diagnostics.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

const VALUES = `connector: demo
hub:
  baseUrl: \${hub-base-url}
  paths.rates: /rates/{pair}
hub.timeout: 5000
retryFlag: true
retryStatuses: 429,503
password: \${hub-password}
`;

function project(extra: Record<string, string> = {}) {
  return tmpProject({ 'values/demo-v1.values.yaml': VALUES, ...extra });
}

describe('values files', () => {
  it('nested YAML and dotted keys are the same property', () => {
    const v = loadValues({ dir: join(project(), 'values'), processEnv: {} }).find('demo-v1')!;
    expect(v.get('hub.paths.rates')).toBe('/rates/{pair}');
    expect(v.get('hub.timeout')).toBe(5000);
    expect(v.get('retryFlag')).toBe(true);
    expect(flatten({ a: { b: 1, 'c.d': [1, 2] } }).map(([k, val]) => [k, val])).toEqual([
      ['a.b', 1],
      ['a.c.d', [1, 2]],
    ]);
  });

  it('resolves environmental keys from --set, then the environment, then the secrets directory, then the environment file', () => {
    const root = project({
      'values/environments/dev.yaml': 'keys:\n  hub-base-url: http://from-env-file\n',
      'secrets/hub-base-url': 'http://from-secrets\n',
    });
    const dir = join(root, 'values');
    const secretsDir = join(root, 'secrets');
    const get = (o: object) =>
      loadValues({ dir, env: 'dev', processEnv: {}, ...o })
        .find('demo-v1')!
        .get('hub.baseUrl');
    expect(get({})).toBe('http://from-env-file');
    expect(get({ secretsDir })).toBe('http://from-secrets');
    expect(get({ secretsDir, processEnv: { HUB_BASE_URL: 'http://from-process-env' } })).toBe(
      'http://from-process-env',
    );
    expect(
      get({ secretsDir, processEnv: { HUB_BASE_URL: 'http://x' }, set: { 'hub-base-url': 'http://from-set' } }),
    ).toBe('http://from-set');
  });

  it('a missing environmental key is an error naming the key, where it is used and how to set it', () => {
    const v = loadValues({ dir: join(project(), 'values'), processEnv: {} }).find('demo-v1')!;
    let err: unknown;
    try {
      v.get('hub.baseUrl', { file: 'routes/demo.yaml', line: 12, col: 7 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DiagnosticError);
    const msg = (err as Error).message;
    expect(msg).toContain('routes/demo.yaml:12:7');
    expect(msg).toContain("environmental key 'hub-base-url' is not set");
    expect(msg).toContain("property 'hub.baseUrl'");
    expect(msg).toContain('HUB_BASE_URL');
  });

  it('--set overrides a property with its YAML type, scoped to one values file with file:prop', () => {
    const dir = join(project({ 'values/other.values.yaml': 'retryFlag: true\n' }), 'values');
    const set = loadValues({ dir, processEnv: {}, set: { 'demo-v1:retryFlag': 'false', 'hub.timeout': '250' } });
    expect(set.find('demo-v1')!.get('retryFlag')).toBe(false);
    expect(set.find('other')!.get('retryFlag')).toBe(true);
    expect(set.find('demo-v1')!.get('hub.timeout')).toBe(250);
  });

  it('--set keeps digits with a leading zero as text: identifiers such as routing number 011000015 are no numbers', () => {
    const dir = join(project(), 'values');
    const set = loadValues({
      dir,
      processEnv: {},
      set: { 'demo-v1:hub.timeout': '011000015', 'demo-v1:retryStatuses': '0.5' },
    });
    expect(set.find('demo-v1')!.get('hub.timeout')).toBe('011000015');
    expect(set.find('demo-v1')!.get('retryStatuses')).toBe(0.5);
  });

  it('--set of a name that is neither a property nor an environmental key in use is refused, with a suggestion', () => {
    const dir = join(project({}), 'values');
    let err: unknown;
    try {
      loadValues({ dir, processEnv: {}, set: { 'hub.timeuot': '250' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DiagnosticError);
    expect((err as Error).message).toContain(
      "'hub.timeuot' is neither a property of a values file nor an environmental key they use; did you mean 'hub.timeout'?",
    );
    expect((err as Error).message).toContain('--set <file>:hub.timeuot=VALUE');
    expect(() => loadValues({ dir, processEnv: {}, set: { 'hub-base-ulr': 'x' } })).toThrow(
      /did you mean 'hub-base-url'/,
    );
    // scoped, a new property is added to that file; a scope naming no file is refused
    expect(
      loadValues({ dir, processEnv: {}, set: { 'demo-v1:hub.extra': '7' } })
        .find('demo-v1')!
        .get('hub.extra'),
    ).toBe(7);
    expect(() => loadValues({ dir, processEnv: {}, set: { 'demo-v2:hub.extra': '7' } })).toThrow(
      /there is no values file 'demo-v2'; did you mean 'demo-v1'\?/,
    );
  });

  it('refuses a secret in an environment file', () => {
    const root = project({ 'values/environments/prod.yaml': 'keys:\n  hub-password: hunter2\n' });
    expect(() => loadValues({ dir: join(root, 'values'), env: 'prod', processEnv: {} })).toThrow(
      /'hub-password' is a secret/,
    );
  });

  it('names the environments that exist when one is missing', () => {
    const root = project({ 'values/environments/dev.yaml': 'keys: {}\n' });
    expect(() => loadValues({ dir: join(root, 'values'), env: 'prd', processEnv: {} })).toThrow(/environments: dev/);
  });
});

describe('placeholders', () => {
  const root = project({
    'routes/r.yaml': 'a: "{{hub.timeout}}"\nb: "{{hub.baseUrl}}/x"\nc: "{{retryStatuses}}"\nd: "{{retryFlg}}"\n',
  });
  const values = loadValues({ dir: join(root, 'values'), processEnv: { HUB_BASE_URL: 'http://h' } }).find('demo-v1')!;
  const src = parseYamlFile(join(root, 'routes/r.yaml'));

  it('a whole placeholder keeps the type; inside text it interpolates', () => {
    const { value } = resolvePlaceholders(src.value, values, src);
    expect(value).toMatchObject({ a: 5000, b: 'http://h/x', c: '429,503' });
  });

  it('an unknown property is a diagnostic at its line with a suggestion', () => {
    const { diagnostics } = resolvePlaceholders(src.value, values, src);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 4, col: 4 });
    expect(diagnostics[0].message).toBe("unknown property 'retryFlg' in values 'demo-v1'; did you mean 'retryFlag'?");
  });
});
