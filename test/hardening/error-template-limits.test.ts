// Error templates (transforms/<vendor>/*.json) hold JSONata too: their expressions get the
// engine's limits, and a runaway one fails with an ExpressionLimitError that names the template
// file and the expression inside it, not "an expression".

import { describe, expect, it } from 'vitest';
import { compileProblem, compileTemplate, type TemplateFile } from '../../engine/pipeline/error-templates.ts';
import { ExpressionLimitError } from '../../engine/expressions/expressions.ts';
import { PlatformError } from '../../engine/core/errors.ts';

// fast-path work that grows with the vendor's body: minutes without a limit
const RUNAWAY = '$string($count([1..vendorBody.n].([1..$$.vendorBody.n][$ < 0])))';
const OPTIONS = {
  timeout: 150,
  maxDepth: 100,
  where: 'route pay, on-exception[0].template transforms/acme/errors.json',
};

const vendorError = (body: unknown) =>
  new PlatformError({ kind: 'vendor', status: 502, vendorStatus: 400, vendorBody: body });

describe('error template expressions are limited and named', () => {
  it('a runaway rule detail fails at the timeout, naming the template file and the rule', async () => {
    const t: TemplateFile = {
      rules: [
        { when: { vendorStatus: [404] }, title: 'Not found' },
        { when: { vendorStatus: [400] }, code: 'GC001', detail: RUNAWAY },
      ],
    };
    const template = compileTemplate(t, OPTIONS);
    const started = Date.now();
    const err: any = await template.map(vendorError({ n: 100_000 })).catch((e) => e);
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toBe(
      'expression at route pay, on-exception[0].template transforms/acme/errors.json, rules[1].detail: evaluation ran longer than 150 ms (engine.expressions.timeout)',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    // a small body maps as usual
    const ok = await template.map(vendorError({ n: 3 }));
    expect(ok.code).toBe('GC001');
    expect(ok.detail).toBe('0');
  });

  it('a runaway vendorCode expression is reported, not taken for a malformed body', async () => {
    const template = compileTemplate({ vendorCode: RUNAWAY, rules: [], default: { code: 'GC027' } }, OPTIONS);
    const err: any = await template.map(vendorError({ n: 100_000 })).catch((e) => e);
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toMatch(/transforms\/acme\/errors\.json, vendorCode: evaluation ran longer than 150 ms/);
    // a body the expression fails on (a range bound that is not a number) still just keeps no code
    const plain = await template.map(vendorError({ n: 'x' }));
    expect(plain.code).toBe('GC027');
    expect(plain.vendorCode).toBeUndefined();
  });

  it("an inline problem's expression names the route's YAML path", async () => {
    const problem = compileProblem({ status: 502, detail: RUNAWAY }, ['on-exception', 2, 'problem'], {
      timeout: 150,
      where: 'route pay',
    });
    const err: any = await problem.apply(vendorError({ n: 100_000 })).catch((e) => e);
    expect(err).toBeInstanceOf(ExpressionLimitError);
    expect(err.message).toMatch(
      /^expression at route pay, on-exception\[2\]\.problem\.detail: evaluation ran longer than 150 ms/,
    );
  });
});
