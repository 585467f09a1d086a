// The --dev file watcher (engine/dev/watch.ts): a burst of saves is reported once with every file
// it touched, in sub-folders created after the watch started too; editor swap and backup files
// are not; a watched single file, and a file of a watched folder, survive an editor's save by
// rename (sed -i, editors writing a temporary file then renaming it).

import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { watchProject, type ProjectWatcher } from '../../engine/dev/watch.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { until } from '../hubvendor-payment-inbound/helpers.ts';

let w: ProjectWatcher | undefined;
afterEach(() => w?.close());

describe('watchProject', () => {
  it('reports a burst of changes once, without editor droppings', async () => {
    const root = tmpProject({ 'routes/a.yaml': 'a: 1\n', 'values/v.values.yaml': 'x: 1\n' });
    const calls: string[][] = [];
    w = watchProject({
      root,
      paths: [join(root, 'routes'), join(root, 'values'), join(root, 'missing')],
      onChange: (f) => calls.push(f),
    });
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

  it('keeps reporting a file of a watched folder after saves by rename, then in place', async () => {
    const root = tmpProject({ 'routes/a/r.yaml': 'a: 1\n' });
    const calls: string[][] = [];
    w = watchProject({ root, paths: [join(root, 'routes')], onChange: (f) => calls.push(f), debounceMs: 50 });
    const file = join(root, 'routes/a/r.yaml');
    // sed -i writes routes/a/sedXXXXXX and renames it over the file; an editor does the same
    execFileSync('sed', ['-i', 's/a: 1/a: 2/', file]);
    await until(() => calls.length === 1, 5000, 'report 1');
    writeFileSync(join(root, 'routes/a/.r.yaml.tmp'), 'a: 3\n');
    renameSync(join(root, 'routes/a/.r.yaml.tmp'), file);
    await until(() => calls.length === 2, 5000, 'report 2');
    writeFileSync(file, 'a: 4\n');
    await until(() => calls.length === 3, 5000, 'report 3');
    expect(calls).toEqual([['routes/a/r.yaml'], ['routes/a/r.yaml'], ['routes/a/r.yaml']]);
  });

  it('follows saves by rename in a folder created after the start, and in one created again', async () => {
    const root = tmpProject({ 'routes/r.yaml': 'a: 1\n' });
    const calls: string[][] = [];
    w = watchProject({ root, paths: [join(root, 'routes')], onChange: (f) => calls.push(f), debounceMs: 50 });
    const saveByRename = (file: string, text: string) => {
      writeFileSync(join(root, 'routes/x/y/.r.yaml.tmp'), text);
      renameSync(join(root, 'routes/x/y/.r.yaml.tmp'), file);
    };
    mkdirSync(join(root, 'routes/x/y'), { recursive: true });
    await until(() => calls.length === 1, 5000, 'the new folders');
    const file = join(root, 'routes/x/y/r.yaml');
    for (const n of [2, 3]) {
      saveByRename(file, `a: ${n}\n`);
      await until(() => calls.length === n && calls[n - 1].includes('routes/x/y/r.yaml'), 5000, `rename-save ${n - 1}`);
    }
    writeFileSync(file, 'a: 4\n');
    await until(() => calls.length === 4, 5000, 'a write in place');
    rmSync(join(root, 'routes/x'), { recursive: true });
    await until(() => calls.length === 5, 5000, 'the removal');
    mkdirSync(join(root, 'routes/x/y'), { recursive: true });
    await until(() => calls.length === 6, 5000, 'the folders made again');
    writeFileSync(file, 'a: 5\n');
    await until(
      () => calls.length === 7 && calls[6].includes('routes/x/y/r.yaml'),
      5000,
      'a write in the folder made again',
    );
  });
});
