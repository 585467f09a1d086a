// Drives the real yaml-language-server (the npm package, over stdio LSP as an editor does) over
// the shipped routes, tools files and examples: no false errors, and a typo is one diagnostic.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as rpc from 'vscode-jsonrpc/node.js';
import { editorDocs, ROOT } from './schema-files.ts';

interface Diagnostic {
  range: { start: { line: number; character: number } };
  message: string;
}

const require = createRequire(import.meta.url);
const SERVER = join(dirname(require.resolve('yaml-language-server/package.json')), 'bin', 'yaml-language-server');
const SETTINGS = { yaml: { validate: true, hover: false, completion: false, schemaStore: { enable: false } } };

let child: ChildProcess;
let conn: rpc.MessageConnection;
const waiting = new Map<string, (d: Diagnostic[]) => void>();
let version = 0;

/** Opens a document (the text need not be on disk) and waits for its diagnostics. */
function diagnose(file: string, text: string): Promise<Diagnostic[]> {
  const uri = pathToFileURL(join(ROOT, file)).href;
  const done = new Promise<Diagnostic[]>((resolve) => waiting.set(uri, resolve));
  conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: ++version, text },
  });
  return done.finally(() => conn.sendNotification('textDocument/didClose', { textDocument: { uri } }));
}

beforeAll(async () => {
  child = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
  conn = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout!),
    new rpc.StreamMessageWriter(child.stdin!),
  );
  conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: Diagnostic[] }) => {
    const w = waiting.get(p.uri);
    if (w) {
      waiting.delete(p.uri);
      w(p.diagnostics);
    }
  });
  conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
    p.items.map((i) => (i.section === 'yaml' ? SETTINGS.yaml : i.section ? null : SETTINGS)),
  );
  conn.onRequest('client/registerCapability', () => null);
  conn.listen();
  const root = pathToFileURL(ROOT).href;
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: root,
    workspaceFolders: [{ uri: root, name: 'project' }],
    capabilities: { workspace: { configuration: true } },
  });
  conn.sendNotification('initialized', {});
  conn.sendNotification('workspace/didChangeConfiguration', { settings: SETTINGS });
}, 30_000);

afterAll(() => {
  conn?.dispose();
  child?.kill();
});

const show = (d: Diagnostic[]) => d.map((x) => `${x.range.start.line + 1}:${x.range.start.character + 1} ${x.message}`);

describe('yaml-language-server over the shipped YAML', () => {
  const docs = editorDocs().filter((d) => d.schema);

  it('reports no diagnostics on any route, tools file or example', async () => {
    expect(docs.length).toBeGreaterThan(40);
    const results = await Promise.all(
      docs.map(async (d) => ({ file: d.file, diagnostics: show(await diagnose(d.file, d.text)) })),
    );
    expect(results.filter((r) => r.diagnostics.length)).toEqual([]);
  }, 60_000);

  it('reports exactly one diagnostic, on the right line, for an unknown key in a route', async () => {
    const file = 'routes/hubvendor-foreign-exchange/get-exchange-rate.yaml';
    const text = docs.find((d) => d.file === file)!.text;
    const lines = text.split('\n');
    const at = lines.findIndex((l) => /^\s+method:/.test(l));
    lines[at] = lines[at].replace('method:', 'mehtod:');
    const d = await diagnose('routes/hubvendor-foreign-exchange/typo.yaml', lines.join('\n'));
    expect(show(d)).toEqual([`${at + 1}:5 Property mehtod is not allowed.`]);
  }, 30_000);

  it('reports exactly one diagnostic for a literal of the wrong type', async () => {
    const file = 'engine/steps/to-http.example.yaml';
    const text = docs.find((d) => d.file === file)!.text.replace('connect: 5000', 'connect: soon');
    const d = await diagnose('engine/steps/wrong-type.example.yaml', text);
    expect(d).toHaveLength(1);
    expect(d[0].range.start.line).toBe(text.split('\n').findIndex((l) => l.includes('connect: soon')));
  }, 30_000);

  it('reports exactly one diagnostic for an unknown key in a gateway tools file', async () => {
    const file = 'routes/gateway/public-tools.yaml';
    const text = docs
      .find((d) => d.file === file)!
      .text.replace('    title: Exchange rate', '    titel: Exchange rate');
    const d = await diagnose('routes/gateway/typo.yaml', text);
    expect(show(d)).toHaveLength(1);
    expect(show(d)[0]).toMatch(/titel/);
  }, 30_000);
});
