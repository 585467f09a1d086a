// The lint the project runs (npm run lint, and .ci/run before the tests): the type-check of the code
// and of the console's page, ESLint, knip, the route lint; and ESLint's configuration (eslint.config.js)
// refuses an import cycle and a line over 120 characters and warns of `any`.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('npm run lint', () => {
  it('type-checks the code and the console page, then runs ESLint, prettier --check, knip and the route lint', () => {
    expect(pkg.scripts.typecheck).toContain('tsc -p tsconfig.json --noEmit');
    expect(pkg.scripts.typecheck).toContain('tsc -p console-ui');
    const steps = pkg.scripts.lint.split(' && ');
    expect(steps).toEqual([
      'npm run typecheck',
      'eslint .',
      'prettier --check . --log-level warn',
      'knip --no-progress',
      'node bin/engine.js lint routes/',
    ]);
  });

  it('runs in CI before the tests', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    const lint = ci.search(/^npm run lint$/m);
    expect(lint).toBeGreaterThan(0);
    expect(ci.indexOf('npm test')).toBeGreaterThan(lint);
  });
});

describe('ESLint configuration', () => {
  it('refuses an import cycle and a long line, and warns of any', async () => {
    // inside the project (the configuration's file patterns are relative to it), removed afterwards
    mkdirSync(join(ROOT, '.engine'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, '.engine', 'lint-probe-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b.ts';\nexport const a = (): number => b();\n");
      writeFileSync(join(dir, 'b.ts'), `import { a } from './a.ts';\nexport const b = (): number => a();\n`);
      const long = `export const c = 1; ${'/'.repeat(2)} ${'x'.repeat(120)}\n`;
      writeFileSync(join(dir, 'c.ts'), `${long}export const d = (v: any): unknown => v;\n`);
      const eslint = new ESLint({ cwd: ROOT, ignore: false });
      const results = await eslint.lintFiles([join(dir, '*.ts')]);
      const found = results.flatMap((r) =>
        r.messages.map((m) => `${r.filePath.slice(dir.length + 1)} ${m.ruleId} ${m.severity}`),
      );
      expect(found.sort()).toEqual([
        'a.ts import-x/no-cycle 2',
        'b.ts import-x/no-cycle 2',
        'c.ts @typescript-eslint/no-explicit-any 1',
        'c.ts max-len 2',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
