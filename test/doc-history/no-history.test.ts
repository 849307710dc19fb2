// The user-facing pages say what is true now: no issue numbers (a reader cannot see the tracker)
// and no commit hashes (figures carry the command that reproduces them instead). The history of
// changes lives in CHANGELOG.md, which this test leaves alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The pages checked: the README, docs/, CONTRIBUTING and each package's README. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const packages = readdirSync(join(ROOT, 'packages'))
    .map((p) => `packages/${p}/README.md`)
    .filter((f) => existsSync(join(ROOT, f)));
  return ['README.md', 'CONTRIBUTING.md', ...docs, ...packages];
}

// A UUID (a job id in a transcript) is hex too; it is removed before looking for hashes.
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
// "issue 14", "Issues 23 and 27", "issue #9", and "#12" where it stands for an issue or pull request.
const ISSUE = /\bissues?\s+#?\d+|(?<=^|[\s([,;])#\d+\b/gi;
// 7 to 40 hex characters standing alone, with a digit and a letter (so neither a number nor a
// word such as "defaced"), or digits only right after "commit"; a SHA-256 of 64 is not a commit
// and has no boundary after 40.
const HASH = /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|(?<=\bcommit\s+)\d{7,40}\b/gi;

export interface HistoryMark { line: number; kind: 'issue number' | 'commit hash'; text: string }

export function historyMarks(text: string): HistoryMark[] {
  const marks: HistoryMark[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(UUID, '');
    for (const m of line.matchAll(ISSUE)) marks.push({ line: i + 1, kind: 'issue number', text: m[0] });
    for (const m of line.matchAll(HASH)) marks.push({ line: i + 1, kind: 'commit hash', text: m[0] });
  });
  return marks;
}

test('the detector finds issue numbers and commit hashes, and leaves ids, figures and words alone', () => {
  const found = (s: string) => historyMarks(s).map((m) => `${m.kind}: ${m.text}`);
  assert.deepEqual(found('the goals of issue 14'), ['issue number: issue 14']);
  assert.deepEqual(found('Issues 23 and 27'), ['issue number: Issues 23']);
  assert.deepEqual(found('fixed in #12, see (#7)'), ['issue number: #12', 'issue number: #7']);
  assert.deepEqual(found('measured on commit 9740899'), ['commit hash: 9740899']);
  assert.deepEqual(found('before (1f67eac) and after'), ['commit hash: 1f67eac']);
  assert.deepEqual(found(`at ${'ab12'.repeat(10)}`), [`commit hash: ${'ab12'.repeat(10)}`]);
  assert.deepEqual(found('job 01a1fcb6-c506-772a-b230-eacfc1c7a56c done'), []);
  assert.deepEqual(found('1,000 pages, 10000000 bytes, a defaced cafe, sha256 ' + 'a1'.repeat(32)), []);
  assert.deepEqual(found('[link](#run-it-at-scale) and a shell comment # 10 runs'), []);
});

for (const page of pages()) {
  test(`${page} names no issue and no commit`, () => {
    const marks = historyMarks(readFileSync(join(ROOT, page), 'utf8'));
    assert.deepEqual(
      marks.map((m) => `${page}:${m.line}: ${m.kind} "${m.text}"`),
      [],
      'say what is true now, with the command that shows it; what changed when belongs in CHANGELOG.md',
    );
  });
}
