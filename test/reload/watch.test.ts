// The --dev file watcher (engine/dev/watch.ts): a burst of saves is reported once with every file
// it touched, in sub-folders created after the watch started too; editor swap and backup files
// are not; a watched single file survives an editor's save by rename.

import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { watchProject, type ProjectWatcher } from '../../engine/dev/watch.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { until } from '../payment-inbound/helpers.ts';

let w: ProjectWatcher | undefined;
afterEach(() => w?.close());

describe('watchProject', () => {
  it('reports a burst of changes once, without editor droppings', async () => {
    const root = tmpProject({ 'routes/a.yaml': 'a: 1\n', 'values/v.values.yaml': 'x: 1\n' });
    const calls: string[][] = [];
    w = watchProject({ root, paths: [join(root, 'routes'), join(root, 'values'), join(root, 'missing')], onChange: (f) => calls.push(f) });
    mkdirSync(join(root, 'routes/new'));
    writeFileSync(join(root, 'routes/new/b.yaml'), 'b: 1\n');
    writeFileSync(join(root, 'routes/a.yaml'), 'a: 2\n');
    writeFileSync(join(root, 'routes/.a.yaml.swp'), 'x');
    writeFileSync(join(root, 'routes/a.yaml~'), 'x');
    writeFileSync(join(root, 'values/v.values.yaml'), 'x: 2\n');
    await until(() => calls.length > 0, 5000, 'a change report');
    // a quiet period longer than the debounce: the burst was one report
    await new Promise((r) => setTimeout(r, 500));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual(expect.arrayContaining(['routes/a.yaml', 'routes/new/b.yaml', 'values/v.values.yaml']));
    expect(calls[0].filter((f) => /swp|~$/.test(f))).toEqual([]);
  });

  it('follows a single watched file through a save by rename', async () => {
    const root = tmpProject({ 'routes/one.yaml': 'a: 1\n', 'routes/other.yaml': 'b: 1\n' });
    const calls: string[][] = [];
    w = watchProject({ root, paths: [join(root, 'routes/one.yaml')], onChange: (f) => calls.push(f), debounceMs: 50 });
    for (const n of [2, 3]) {
      writeFileSync(join(root, 'routes/.one.tmp'), `a: ${n}\n`);
      renameSync(join(root, 'routes/.one.tmp'), join(root, 'routes/one.yaml'));
      await until(() => calls.length === n - 1, 5000, `report ${n - 1}`);
    }
    writeFileSync(join(root, 'routes/other.yaml'), 'b: 2\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(calls).toEqual([['routes/one.yaml'], ['routes/one.yaml']]);
  });
});
