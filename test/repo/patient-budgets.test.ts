import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

// The suites that run the real processes side by side wait with budgets scaled to the machine
// (`patient(ms)`, test/support/patience.ts). A budget written as a bare number stays the same on a machine
// measured twenty times slower than the reference one, and runs out there while all is well.

const WAITS = new Set(['waitInThread', 'waitForCard', 'waitForEphemeral']);
/** `timeoutMs` anywhere; `timeout` in the options of `expect.poll` or `vi.waitFor` (elsewhere it may be data). */
function isBudget(node: ts.PropertyAssignment): boolean {
  if (!ts.isIdentifier(node.name)) return false;
  if (node.name.text === 'timeoutMs') return true;
  const call = node.parent.parent;
  return (
    node.name.text === 'timeout' &&
    ts.isCallExpression(call) &&
    ts.isPropertyAccessExpression(call.expression) &&
    ['poll', 'waitFor'].includes(call.expression.name.text)
  );
}

function suiteFiles(): string[] {
  return ['test/e2e', 'test/browser'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((path) => /\.ts$/.test(path))
      .map((path) => relative(ROOT, join(ROOT, dir, path))),
  );
}

/** Each budget given as a bare number: `file:line`. */
function bareBudgets(path: string): string[] {
  const source = ts.createSourceFile(
    path,
    readFileSync(join(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${path}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : '';
      if (WAITS.has(name))
        for (const arg of node.arguments) if (ts.isNumericLiteral(arg)) found.push(at(arg));
    }
    if (ts.isPropertyAssignment(node) && isBudget(node) && ts.isNumericLiteral(node.initializer))
      found.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('wait budgets in the e2e and browser suites', () => {
  it('go through patient(), none as a bare number', () => {
    expect(suiteFiles().flatMap(bareBudgets)).toEqual([]);
  });
});
