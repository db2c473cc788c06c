import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

// Which issue asked for a piece of code is history: CHANGELOG.md and git keep it. The code says what it
// does and why, so no source, test, benchmark or script names an issue, in a comment (`(#23)`, `issue 25`,
// `Issue #15's settings`, `#11 §5`) or in a name (`TARGET_22`, `targets22Of`, `issue25Config`).
// Not issue references, and so allowed: an HTML character reference (`&#39;`), a private field (`#handle`),
// an id inside a word (`r1#0`, `${roundId}#0`), a link's fragment (`page.md#heading`), a CSS colour
// (`color: #999;`), a counted thing's number (`prompt #5`, `session #10`), another project's issue cited
// as evidence (`slackapi/bolt-js #2509, #2867`), and names whose number is a measure or a version
// (`p95Ms`, `tier4PerMinute`, `EMULATOR_FAULT_RATE_429`, `mulberry32`). This folder defines the patterns,
// so it is not scanned; neither are bench/results (figures), built output and node_modules.

/** The folders scanned, from the root. */
const SCANNED = [
  ...readdirSync(join(ROOT, 'packages')).flatMap((name) =>
    ['src', 'test', 'web'].map((dir) => join('packages', name, dir)),
  ),
  'packages/n8n-node/nodes',
  'packages/n8n-node/credentials',
  'packages/n8n-node/scripts',
  'test',
  'bench',
  'scripts',
];

const SKIPPED = new Set(['test/repo', 'bench/results', 'bench/dist']);
const SKIPPED_NAMES = new Set(['node_modules', 'dist']);
const CODE = new Set([
  '.ts',
  '.mts',
  '.cts',
  '.tsx',
  '.js',
  '.mjs',
  '.cjs',
  '.json',
  '.css',
  '.html',
  '.sh',
  '.sql',
]);

function filesUnder(dir: string): string[] {
  if (SKIPPED.has(dir) || !existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return SKIPPED_NAMES.has(name) ? [] : filesUnder(path);
    return CODE.has(extname(name)) ? [path] : [];
  });
}

const codeFiles = (): string[] => SCANNED.flatMap(filesUnder);

/** `issue 25`, `Issues 23 and 25`, `PR #4`, `pull request 7`. */
const IN_WORDS = /\b(?:issues?|PRs?|pull requests?)\s+#?\d+/gi;
/** `#23`, not inside a word or after an interpolation, a character reference, a path or another `#` run. */
const HASH_NUMBER = /(?<![\w&#/}])#(\d+)\b/g;
/** A name with an issue number in it: `issue25Config`, `TARGET_22`, `TARGET_22_TEXT`, `targets22Of`. */
const IN_NAMES = [
  /\b\w*(?:issue|Issue|ISSUE)_?\d+\w*/g,
  /\b[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)*_\d{1,2}(?:_[A-Z][A-Z0-9]*)*\b/g,
  /\b[a-z]{2,}\d{2}[A-Z]\w*/g,
];

/** Before a colour: a CSS property and any value words (`color: `, `border-left: 1px solid `, `fill="`). */
const CSS_PROPERTY = /[a-z-]+\s*[:=]\s*(?:[\w.%-]+\s+)*['"]?$/i;
/** Before a counted thing's number: its noun (`prompt #5`, `session #10`). */
const COUNTED =
  /\b(?:prompt|session|question|item|step|round|message|card|thread|page|run|attempt|replica)\s*$/i;
/** Before another project's issue: its `owner/repo`, then any issues already cited (`#2509, `). */
const OTHER_PROJECT = /\b[\w.-]+\/[\w.-]+\s+(?:#\d+,?\s+(?:and\s+)?)*$/;

/** The words before a match, read across a wrapped comment: the line before, then this line's start. */
const wordsBefore = (line: string, index: number, previous: string) =>
  `${previous.trimEnd()} ${line.slice(0, index).replace(/^\s*(?:\*|\/\/)\s*/, '')}`;

function isIssueHash(line: string, match: RegExpMatchArray, previous: string): boolean {
  const digits = match[1] ?? '';
  const colour = [3, 4, 6, 8].includes(digits.length) && CSS_PROPERTY.test(line.slice(0, match.index));
  const before = wordsBefore(line, match.index ?? 0, previous);
  return !colour && !COUNTED.test(before) && !OTHER_PROJECT.test(before);
}

/** Each issue reference on a line (the line before it gives the context of a wrapped comment). */
function issueReferencesIn(line: string, previous = ''): string[] {
  const hashes = [...line.matchAll(HASH_NUMBER)].filter((m) => isIssueHash(line, m, previous));
  const others = [IN_WORDS, ...IN_NAMES].flatMap((pattern) => [...line.matchAll(pattern)]);
  return [...hashes, ...others].map((m) => m[0]);
}

function referencesIn(file: string): string[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  return lines.flatMap((line, i) =>
    issueReferencesIn(line, lines[i - 1]).map((found) => `${file}:${i + 1}: ${found}`),
  );
}

describe('no history in the code', () => {
  it('recognises an issue reference, in words, as a number or in a name', () => {
    const found = (line: string) => {
      const [previous, last] = line.includes('\n') ? line.split('\n') : ['', line];
      return issueReferencesIn(last ?? '', previous).length > 0;
    };
    const references = [
      '/** The agent surface (#23): its streams. */',
      '// Issue #15: who may decide',
      'describe("OAuth installs (issue 25)", () => {',
      "// plain-text rows from before #25's encryption",
      ' * #11 §5: a session waits',
      "log('Target (#22): ' + text);",
      "(Slack's session status, #23)",
      'export const TARGET_22 = { floorK: 20 };',
      'TARGET_22_TEXT',
      'const t = targets22Of(phases);',
      'const issue25Config = {};',
      'see issues 23 and 25',
      '// Posts: the agent surface (#123).',
      ' * the agent surface, added in\n * #23, streams',
    ];
    expect(references.filter((line) => !found(line))).toEqual([]);
    const legitimate = [
      "  \"'\": '&#39;',",
      `expect(all).toEqual(rounds.map((r) => \`\${r.roundId}#0\`));`,
      ' * block is within its own limit. What is known (slackapi/bolt-js #2509, #2867): a message',
      ' * what is known (slackapi/bolt-js\n * #2509, #2867): a message of `markdown` blocks only',
      ' * keeps session\n * #1 apart',
      'const BARE = /(@|&#0*64;|&#x0*40;)/gi;',
      'async #handle(session: SessionRecord): Promise<void> {',
      "expect(keys).toEqual(['r1#0', 'msg:r1#1']);",
      "client.sessions.respond('s1', 'in#1', {})",
      '  color: #999;',
      '  border: 1px solid #555;',
      `el.style.background = '#333'; <rect fill="#123456"/>`,
      "'no suggested prompt #5'",
      "// The trailing word keeps session #1 from matching session #10's card.",
      `const goal = \`memory bench \${label} #\${i} end\`;`,
      'const HEADING = /^#{1,6}\\s+(.+)$/gm; // see page.md#heading',
      'const p95Ms = percentile(latencies, 95);',
      'tier4PerMinute: 100, EMULATOR_FAULT_RATE_429: 0.1',
      "const random = mulberry32(seed); target: 'node20'",
      'const issues: AnswerIssue[] = []; issues.push(issue);',
    ];
    expect(legitimate.filter(found)).toEqual([]);
  });

  it('scans the sources, tests, benchmarks and scripts, not the patterns or the figures', () => {
    const files = codeFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        'packages/slack-bot/src/wiring/start-bot.ts',
        'packages/core/src/index.ts',
        'packages/slack-bot/test/layout.test.ts',
        'packages/n8n-node/nodes/AgentSessions/AgentSessions.node.ts',
        'test/e2e/oauth.test.ts',
        'bench/slack/report.ts',
        'scripts/start.mjs',
      ]),
    );
    expect(files.filter((f) => /^(test\/repo|bench\/results)\/|node_modules|\/dist\//.test(f))).toEqual([]);
  });

  it('no source, test, benchmark or script names an issue', () => {
    expect(codeFiles().flatMap(referencesIn)).toEqual([]);
  });
});
