// Reads the runnable blocks of a markdown document and the answers they document.
// The conventions are described at the top of docs.test.ts.

export interface Expectation {
  /** 1-based line in the markdown file, for failure messages */
  line: number;
  status?: number;
  exit?: number;
  /** JSON subset expected in the last JSON document printed */
  json?: unknown;
  /** expected output lines, in order; `...` matches any text */
  lines?: string[];
}

export interface Step {
  /** shell text run before the expectation is checked */
  script: string;
  expect?: Expectation;
}

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  lang: string;
  skip?: string;
  steps: Step[];
}

const RUN_LANGS = new Set(['sh', 'bash', 'shell', 'console']);
const SKIP = /^#\s*doc-test:\s*skip\b[\s:(-]*(.*?)\)?\s*$/;
const EXPECT = /^\s*#\s*->\s?(.*)$/;

/** `...` members and elisions are written for readers; they expect nothing. */
function parseJsonText(text: string, where: string): unknown {
  let t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) t = `{${t}}`;
  t = t
    .replace(/\{\s*\.\.\.\s*\}/g, '"..."')
    .replace(/,\s*\.\.\.\s*(?=[}\]])/g, '')
    .replace(/\[\s*\.\.\.\s*\]/g, '"..."');
  try {
    return JSON.parse(t);
  } catch (e) {
    throw new Error(`${where}: the documented answer is not JSON: ${(e as Error).message}\n${t}`, { cause: e });
  }
}

function balanced(s: string): boolean {
  let depth = 0;
  let inStr = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return depth <= 0;
}

/** `# -> 404 {"code":"GC054"}`, `# -> exit 1`, `# -> "bankStatus":"CANCELLED"`; JSON may go on over `#` lines. */
function parseExpectLines(
  lines: string[],
  start: number,
  fileLine: number,
  where: string,
): { expect: Expectation; next: number } {
  let text = EXPECT.exec(lines[start])![1].trim();
  let i = start + 1;
  const expect: Expectation = { line: fileLine };
  const exit = /^exit\s+(\d+)\s*(.*)$/.exec(text);
  if (exit) {
    expect.exit = Number(exit[1]);
    text = exit[2];
  }
  const status = /^(\d{3})\b\s*(.*)$/.exec(text);
  if (status) {
    expect.status = Number(status[1]);
    text = status[2];
  }
  if (text) {
    while (!balanced(text) && i < lines.length && /^\s*#\s/.test(lines[i]) && !EXPECT.test(lines[i])) {
      text += ' ' + lines[i].replace(/^\s*#\s*/, '');
      i++;
    }
    expect.json = parseJsonText(text, where);
  }
  return { expect, next: i };
}

function shellSteps(body: string[], firstLine: number, where: string): Step[] {
  const steps: Step[] = [];
  let script: string[] = [];
  for (let i = 0; i < body.length;) {
    if (EXPECT.test(body[i])) {
      const { expect, next } = parseExpectLines(body, i, firstLine + i, `${where}:${firstLine + i}`);
      steps.push({ script: script.join('\n'), expect });
      script = [];
      i = next;
    } else {
      script.push(body[i]);
      i++;
    }
  }
  if (script.some((l) => l.trim() && !l.trim().startsWith('#'))) steps.push({ script: script.join('\n') });
  return steps;
}

/** A console transcript: `$ command` lines, each followed by the output it prints. */
function consoleSteps(body: string[], firstLine: number): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < body.length; i++) {
    const m = /^\$ (.*)$/.exec(body[i]);
    if (!m) continue;
    const out: string[] = [];
    let j = i + 1;
    for (; j < body.length && !body[j].startsWith('$ '); j++) if (body[j].trim()) out.push(body[j]);
    steps.push({ script: m[1], expect: out.length ? { line: firstLine + i, lines: out } : undefined });
    i = j - 1;
  }
  return steps;
}

export function parseDoc(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let last: DocBlock | undefined;
  let lastEnd = -1;
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const lang = open[3].toLowerCase();
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[end])) end++;
    const body = lines.slice(i + 1, end);
    const between = lines.slice(lastEnd + 1, i).filter((l) => l.trim());
    // an answer block: right after a run block, with at most one line of prose (e.g. "`201 Created`:")
    if (
      last &&
      !last.skip &&
      (lang === 'json' || lang === 'text') &&
      between.length <= 1 &&
      (!between[0] || /:\s*$/.test(between[0]))
    ) {
      const expect: Expectation = { line: i + 1 };
      const status = between[0] && /^`?(\d{3})\b/.exec(between[0].trim());
      if (status) expect.status = Number(status[1]);
      if (lang === 'json') expect.json = parseJsonText(body.join('\n'), `${file}:${i + 1}`);
      else expect.lines = body.filter((l) => l.trim());
      // it completes the last command's `# -> ...` (e.g. `# -> exit 1` and then the output)
      const final = last.steps.at(-1);
      if (final)
        final.expect = {
          ...expect,
          ...final.expect,
          json: final.expect?.json ?? expect.json,
          lines: final.expect?.lines ?? expect.lines,
        };
      else last.steps.push({ script: '', expect });
      last = undefined;
    } else if (RUN_LANGS.has(lang)) {
      const skip = body.length ? SKIP.exec(body[0].trim()) : null;
      const block: DocBlock = { file, line: i + 1, lang, steps: [] };
      if (skip) block.skip = skip[1] || 'marked skip';
      else block.steps = lang === 'console' ? consoleSteps(body, i + 2) : shellSteps(body, i + 2, file);
      blocks.push(block);
      last = block;
    } else {
      last = undefined;
    }
    lastEnd = end;
    i = end;
  }
  return blocks;
}
