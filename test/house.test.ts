import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { projectRoot } from './helpers/cli.js';

// The shape issue 52 left the house in, held: a layer never names one above it (no circle of
// imports, type-only and dynamic ones included), and no file or function grows past what a
// reader takes in at once.
const MAX_FILE_LINES = 450;
const MAX_STORE_LINES = 400;
const MAX_FUNCTION_LINES = 120;
const STORES = ['src/server/stores/sqlite/sqlite-plant-store.ts', 'src/server/stores/postgres/postgres-plant-store.ts'];

interface SourceFile {
  file: string;
  lines: number;
  imports: Set<string>;
  functions: { line: number; lines: number }[];
}

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(projectRoot, folder), { withFileTypes: true }).flatMap((entry) => {
    const name = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(name);
    return name.endsWith('.ts') ? [name] : [];
  });
}

function read(file: string): SourceFile {
  const text = readFileSync(path.join(projectRoot, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports = new Set<string>();
  const functions: SourceFile['functions'] = [];
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const addImport = (specifier: ts.Node | undefined) => {
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return;
    imports.add(
      path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.text.replace(/\.js$/, '.ts'))),
    );
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) addImport(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      addImport(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) addImport(node.argument.literal);
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const line = lineOf(node.getStart());
      functions.push({ line, lines: lineOf(node.end) - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), imports, functions };
}

const files = sourceFiles('src').map(read);

/** Every circle of imports (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function importCircles(): string[][] {
  const graph = new Map(files.map((file) => [file.file, [...file.imports].filter((to) => to !== file.file)]));
  const selfImports = files.filter((file) => file.imports.has(file.file)).map((file) => [file.file]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const connect = (from: string) => {
    index.set(from, index.size);
    low.set(from, index.get(from) ?? 0);
    stack.push(from);
    for (const to of graph.get(from) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        connect(to);
        low.set(from, Math.min(low.get(from) ?? 0, low.get(to) ?? 0));
      } else if (stack.includes(to)) low.set(from, Math.min(low.get(from) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(from) !== index.get(from)) return;
    const component: string[] = [];
    let file: string | undefined;
    do {
      file = stack.pop();
      if (file !== undefined) component.push(file);
    } while (file !== undefined && file !== from);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return [...circles, ...selfImports];
}

it('no circle of imports in src/, type-only and dynamic imports included', () => {
  expect(files.length).toBeGreaterThan(100);
  expect(files.some((file) => file.imports.size > 0)).toBe(true);
  expect(importCircles()).toEqual([]);
});

it(`no file in src/ over ${MAX_FILE_LINES} lines, and neither store over ${MAX_STORE_LINES}`, () => {
  expect(files.filter((file) => file.lines > MAX_FILE_LINES).map(({ file, lines }) => `${file}: ${lines}`)).toEqual([]);
  const stores = files.filter((file) => STORES.includes(file.file));
  expect(stores.map(({ file }) => file).sort()).toEqual([...STORES].sort());
  expect(stores.filter((file) => file.lines > MAX_STORE_LINES).map(({ file, lines }) => `${file}: ${lines}`)).toEqual(
    [],
  );
});

it(`no function in src/ over ${MAX_FUNCTION_LINES} lines`, () => {
  const long = files.flatMap(({ file, functions }) =>
    functions.filter((fn) => fn.lines > MAX_FUNCTION_LINES).map((fn) => `${file}:${fn.line}: ${fn.lines} lines`),
  );
  expect(long).toEqual([]);
});
