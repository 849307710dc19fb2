// The shell walkthroughs of a markdown page: every fenced block with a `$ ` prompt, its commands
// and the output lines the page shows under each. Pure text in, data out (doc-blocks.test.ts).
//
// In a block:
// - a line starting with `$ ` is a command; a command line ending in `\` continues on the next;
// - the lines under a command, up to the next `$ ` line, are the output the page shows for it;
// - lines before the first `$ ` are output of something the page does not run: not compared.
// An HTML comment on the line just above the fence gives the block directives the doc test
// reads (normalise.ts): `<!-- doctest: numbers vary -->`, `<!-- doctest: output not compared -->`,
// and `<!-- doctest: background until "<regex>" -->` for a block that serves until stopped
// (walkthroughs.test.ts).

export interface DocCommand {
  /** The command as bash runs it: continuation lines joined with their newlines. */
  text: string;
  /** 1-based line of its `$ ` in the page. */
  line: number;
  /** The lines the page shows under it (blank lines dropped). */
  expected: string[];
}

export interface DocBlock {
  /** The page's path from the repository root, e.g. `docs/changes.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  commands: DocCommand[];
  /** Words of `<!-- doctest: ... -->` just above the fence, e.g. `numbers vary`. */
  directives: string[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
const DIRECTIVE = /^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$/;
const PROMPT = /^\$ (.*)$/;

/** The `$ ` blocks of one page, in page order. */
export function parseDocBlocks(page: string, markdown: string): DocBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]);
      if (close && close[2][0] === fence[0] && close[2].length >= fence.length && close[3].trim() === '') break;
      // Lines of a fence inside a list item carry the item's indent.
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    const commands = commandsOf(body, i + 2);
    if (commands.length > 0) blocks.push({ page, line: i + 1, commands, directives: directivesAbove(lines, i) });
    i = j;
  }
  return blocks;
}

function commandsOf(body: string[], firstLine: number): DocCommand[] {
  const commands: DocCommand[] = [];
  for (let k = 0; k < body.length; k++) {
    const prompt = PROMPT.exec(body[k]);
    if (!prompt) {
      const line = body[k].trimEnd();
      if (commands.length > 0 && line !== '') commands[commands.length - 1].expected.push(line);
      continue;
    }
    const start = k;
    const parts = [prompt[1]];
    while (parts[parts.length - 1].endsWith('\\') && k + 1 < body.length) parts.push(body[++k]);
    commands.push({ text: parts.join('\n'), line: firstLine + start, expected: [] });
  }
  return commands;
}

function directivesAbove(lines: string[], fenceIndex: number): string[] {
  let k = fenceIndex - 1;
  while (k >= 0 && lines[k].trim() === '') k--;
  const found = k >= 0 ? DIRECTIVE.exec(lines[k]) : null;
  return found ? found[1].split(/\s*,\s*/).filter(Boolean) : [];
}

/** The page's `$ export NAME=...` commands, which later blocks of the page run first. */
export function isExport(command: DocCommand): boolean {
  return /^export\s+[A-Za-z_][A-Za-z0-9_]*=/.test(command.text);
}
