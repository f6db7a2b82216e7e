/**
 * `f(...xs)` and `f.apply(this, xs)` put every element of `xs` on the call stack: above ~120,000
 * elements V8 throws `RangeError: Maximum call stack size exceeded`. Plans, listings and reports are
 * as long as the firewall is big, so src/ never spreads an array into a call (array literals
 * `[...xs]` are fine: they do not use the stack).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line: text` for every spread argument and every `.apply(thisArg, args)` call in `code`. */
function unboundedCallArguments(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${file}:${line + 1}: ${node.getText(source)}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      if (node.arguments?.some(ts.isSpreadElement)) report(node);
      const callee = node.expression;
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'apply' &&
        node.arguments.length === 2
      ) {
        report(node);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no unbounded arguments', () => {
  it('finds spread arguments and apply calls, and leaves array literals alone', () => {
    const code = [
      'out.push(...rows);',
      'const m = Math.max(0, ...widths);',
      'new Set(...pairs);',
      'fn.apply(null, args);',
      'const copy = [...rows];',
      'filter.apply(values);',
    ].join('\n');
    expect(unboundedCallArguments('x.ts', code).map((line) => line.split(': ')[0])).toEqual([
      'x.ts:1',
      'x.ts:2',
      'x.ts:3',
      'x.ts:4',
    ]);
  });

  it('src/ has none', () => {
    const found = sourceFiles(join(ROOT, 'src')).flatMap((path) =>
      unboundedCallArguments(relative(ROOT, path), readFileSync(path, 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
