// One walkthrough block as a bash script, and its output cut back into one part per command.
// A marker line (starting with the ASCII record separator, which no command prints) goes before
// and after each command, the second with its exit code; the script stops at the first command
// that fails, as a reader would. The exports of the page's earlier blocks run first, silently.

const MARK = '\u001edoctest';

export function blockScript(commands: string[], carriedExports: string[]): string {
  const lines = ['exec 2>&1 </dev/null'];
  for (const e of carriedExports) lines.push(`${e} >/dev/null`);
  commands.forEach((command, i) => {
    lines.push(
      `printf '\\n${MARK} begin ${i}\\n'`,
      command,
      '__doctest_status=$?',
      `printf '\\n${MARK} end ${i} %s\\n' "$__doctest_status"`,
      '[ "$__doctest_status" -eq 0 ] || exit "$__doctest_status"',
    );
  });
  return `${lines.join('\n')}\n`;
}

export interface CommandRun {
  output: string;
  /** Its exit code; undefined when it never ended (the block timed out or was killed). */
  status: number | undefined;
}

/** One entry per command that started, in order. */
export function splitOutput(output: string): CommandRun[] {
  const runs: CommandRun[] = [];
  const marker = new RegExp(`\\n?${MARK} (begin|end) (\\d+)(?: (\\d+))?\\n`, 'g');
  let open: { index: number; from: number } | undefined;
  for (const m of output.matchAll(marker)) {
    if (m[1] === 'begin') {
      open = { index: Number(m[2]), from: m.index + m[0].length };
    } else if (open && open.index === Number(m[2])) {
      runs.push({ output: output.slice(open.from, m.index), status: Number(m[3]) });
      open = undefined;
    }
  }
  if (open) runs.push({ output: output.slice(open.from), status: undefined });
  return runs;
}
