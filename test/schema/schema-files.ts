// The YAML documents an editor validates (shipped routes, gateway tools files, the reference's
// examples) and the schema each names in its `# yaml-language-server: $schema=` modeline. A step
// kind's example, kept in its file, is given as the document an editor would see beside it.

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { findYamlFiles } from '../../engine/dsl/route-loader.ts';
import { STEP_KINDS } from '../../engine/steps/registry.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const MODELINE = /^#\s*yaml-language-server:\s*\$schema=(\S+)/m;

export interface SchemaDoc {
  /** path relative to the project */
  file: string;
  text: string;
  /** absolute path of the schema the modeline names, if any */
  schema?: string;
}

export function editorDocs(dirs = ['routes', 'docs/examples']): SchemaDoc[] {
  const files = findYamlFiles(dirs.map((d) => join(ROOT, d))).map((abs) => {
    const text = readFileSync(abs, 'utf8');
    const m = MODELINE.exec(text);
    return { file: relative(ROOT, abs), text, schema: m ? resolve(dirname(abs), m[1]) : undefined };
  });
  return [...files, ...stepExamples()];
}

/** Each step kind's example as `engine/steps/<kind>.example.yaml` (not on disk), naming the route schema. */
function stepExamples(): SchemaDoc[] {
  return [...STEP_KINDS.values()].map((k) => ({
    file: `engine/steps/${k.kind}.example.yaml`,
    text: `# yaml-language-server: $schema=../../schemas/route.schema.json\n${k.example}\n`,
    schema: join(ROOT, 'schemas', 'route.schema.json'),
  }));
}
