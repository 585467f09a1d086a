// Bundles the console's page (main.js, its modules, Preact and htm, console.css) with esbuild into
// content-hashed files and an index.html naming them. Used by the engine when it runs from the
// sources (in memory) and by `npm run build` (node console-ui/build.mjs dist/console).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const hash = (body) => createHash('sha256').update(body).digest('hex').slice(0, 12);

/** index.html and the hashed asset files, in memory. */
export async function bundleConsole(root) {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [join(root, 'console-ui', 'main.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    outdir: join(root, 'console-ui', 'out'),
    legalComments: 'none',
    logLevel: 'silent',
  });
  const files = out.outputFiles.map((f) => {
    const ext = f.path.slice(f.path.lastIndexOf('.'));
    return { name: `console-${hash(f.contents)}${ext}`, body: f.contents };
  });
  const js = files.find((f) => f.name.endsWith('.js')).name;
  const css = files.find((f) => f.name.endsWith('.css'))?.name;
  const index = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Integration engine console</title>
<link rel="icon" href="data:,">
${css ? `<link rel="stylesheet" href="/console/assets/${css}">` : ''}
<script type="module" src="/console/assets/${js}"></script>
</head>
<body><div id="app"><noscript>The console needs JavaScript.</noscript></div></body>
</html>
`;
  return { index, files };
}

// `node console-ui/build.mjs <dir>`: writes index.html and assets/ for the build (dist/console)
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '..', '..');
  const dir = resolve(process.argv[2] ?? join(root, 'dist', 'console'));
  const b = await bundleConsole(root);
  mkdirSync(join(dir, 'assets'), { recursive: true });
  for (const f of b.files) writeFileSync(join(dir, 'assets', f.name), f.body);
  writeFileSync(join(dir, 'index.html'), b.index);
  console.log(`console: ${b.files.map((f) => f.name).join(', ')} -> ${dir}`);
}
