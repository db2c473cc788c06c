import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

// Every test says what it checks with an assertion of its own. A test whose body only waits (for a card, a
// message in a thread, an ephemeral) passes as long as the wait ends, and fails only as a timeout that
// names the wait, not the thing that went wrong; what it was meant to hold is left for the reader to guess.
//
// An assertion is a call to `expect…` or `assert…`: vitest's `expect` (and `expect.poll`), node's or
// fast-check's `assert` (`fc.assert` runs a property and throws on a counterexample), or a helper of the
// suite named so (`expectEachOnce`), whose name promises it asserts. The call may sit in a callback inside
// the test (`vi.waitFor(() => expect(…))`, a property's predicate).

/** The test files of every package and of the cross-package suites. */
function testFiles(): string[] {
  const roots = [
    ...readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name, 'test')),
    join(ROOT, 'test'),
  ];
  return roots.flatMap((dir) => {
    let entries: string[];
    try {
      entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
    } catch {
      return []; // a package without tests
    }
    return entries
      .filter((path) => /\.test\.[cm]?[jt]s$/.test(path) && !path.split(/[\\/]/).includes('node_modules'))
      .map((path) => relative(ROOT, join(dir, path)));
  });
}

/** `it(…)`, `test(…)` and their forms: `it.each(table)(…)`, `it.skipIf(c)(…)`, `test.concurrent(…)`. */
function isTestCall(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'it' || callee.text === 'test';
  if (ts.isPropertyAccessExpression(callee) || ts.isCallExpression(callee))
    return isTestCall(callee.expression);
  return false;
}

const ASSERTING = /^(expect|assert)/;

/** A call to `expect…`/`assert…`, by its own name (`fc.assert`) or its chain's root (`expect.poll`). */
function isAssertion(call: ts.CallExpression): boolean {
  let callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && ASSERTING.test(callee.name.text)) return true;
  while (ts.isPropertyAccessExpression(callee)) callee = callee.expression;
  return ts.isIdentifier(callee) && ASSERTING.test(callee.text);
}

function asserts(body: ts.Node): boolean {
  let found = false;
  const visit = (node: ts.Node) => {
    if (found) return;
    if (ts.isCallExpression(node) && isAssertion(node)) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

/** The tests in `text` whose body asserts nothing, as `path:line: name`. */
function testsWithoutAssertion(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && isTestCall(node.expression)) {
      const body = node.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a));
      if (body) {
        if (!asserts(body)) {
          const [name] = node.arguments;
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          found.push(
            `${path}:${line}: ${name && ts.isStringLiteralLike(name) ? name.text : name?.getText(source)}`,
          );
        }
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A clock read: what a duration is measured with. */
const CLOCK = /\b(?:Date\.now|performance\.now|process\.hrtime(?:\.bigint)?)\(\)/;

/** A difference with a clock read on either side: a duration. */
function measuresTime(node: ts.Node, source: ts.SourceFile): boolean {
  if (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.MinusToken &&
    (CLOCK.test(node.left.getText(source)) || CLOCK.test(node.right.getText(source)))
  )
    return true;
  return ts.forEachChild(node, (child) => measuresTime(child, source) || undefined) ?? false;
}

/**
 * The assertions in `text` on a duration (`expect(Date.now() - started).toBeLessThan(…)`), as
 * `path:line: code`. How long something took depends on the machine and what else runs on it; a test
 * asserts what happened (the count of polls, the order of events), and speed targets live in bench/.
 */
function timedAssertions(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'expect' &&
      node.arguments.some((a) => measuresTime(a, source))
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${path}:${line}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('every test asserts what it checks', () => {
  it('reads the test files of every package and of test/', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files).toEqual(
      expect.arrayContaining([
        'packages/core/test/human-input/answer.test.ts',
        'packages/n8n-node/test/node.test.ts',
        'test/e2e/steering.test.ts',
        'test/browser/sandbox-page.test.ts',
        'test/repo/explicit-assertions.test.ts',
      ]),
    );
  });

  it('tells a test that only waits from one that asserts (a check that cannot fail would prove nothing)', () => {
    const sample = [
      "it('only waits', async () => { await h.waitForCard(ts, (t) => /Done/.test(t), 'done'); });",
      "test('a helper that does not say it asserts', () => { valid(blocks); });",
      "it.each([1, 2])('each %s, waiting', async (n) => { await ws.waitFor(() => n > 0); });",
      "it('asserts', async () => { const m = await h.waitInThread(ts, p, 'x'); expect(m.text).toMatch(/x/); });",
      "it('polls', async () => { await expect.poll(() => count()).toBe(2); });",
      "it('waits for an assertion', async () => { await vi.waitFor(() => expect(done()).toBe(true)); });",
      "it('a property', () => { fc.assert(fc.property(fc.string(), (s) => s.length >= 0)); });",
      "it('a named helper', async () => { await expectEachOnce(ts); });",
      "it.todo('later');",
    ].join('\n');
    expect(testsWithoutAssertion('sample.test.ts', sample)).toEqual([
      'sample.test.ts:1: only waits',
      'sample.test.ts:2: a helper that does not say it asserts',
      'sample.test.ts:3: each %s, waiting',
    ]);
  });

  it('no test passes by only waiting', () => {
    const found = testFiles().flatMap((path) =>
      testsWithoutAssertion(path, readFileSync(join(ROOT, path), 'utf8')),
    );
    expect(found).toEqual([]);
  });
});

describe('no test asserts a time', () => {
  it('finds a duration in an assertion (a check that cannot fail would prove nothing)', () => {
    const sample = [
      'expect(Date.now() - started).toBeLessThan(5_000);',
      'expect(performance.now() - t0).toBeLessThan(100);',
      'expect(Number(process.hrtime.bigint() - t0) / 1e6).toBeLessThan(100);',
      'expect(polls).toBe(1);',
      'expect(Date.parse(answer.answeredAt)).toBeGreaterThanOrEqual(before);',
      'expect(await prune(new Date(Date.now() + 60_000))).toBe(2);',
    ].join('\n');
    expect(timedAssertions('sample.test.ts', sample).map((f) => f.split(':')[1])).toEqual(['1', '2', '3']);
  });

  it('no assertion reads a clock', () => {
    const found = testFiles().flatMap((path) =>
      timedAssertions(path, readFileSync(join(ROOT, path), 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
