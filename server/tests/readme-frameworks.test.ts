// The README, exactly as written: its React snippet and its Vue and npm import lines type-check
// against the package's published types (package.json's exports → build/, so `npm run build`
// first), as a merchant's strict TypeScript project would see them. The snippets are given to
// the TypeScript compiler as they are, untouched, as files inside this repository, so
// `service-checkout/…` resolves to the package itself by its name and exports. How the
// components behave in a real app is e2e/frameworks.spec.ts's (the same ServiceCheckoutButton
// with an options object, and useServiceCheckout, built with Vite and paid in Chromium).
import { existsSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';

const README = readFileSync(fromRoot('README.md'), 'utf8');

/** The fenced block of `lang` that follows `after` in the README (as readme-snippets.test.ts reads it). */
function block(after: string, lang: string): string {
  const at = README.indexOf(after);
  expect(at, `the README has "${after}"`).toBeGreaterThan(-1);
  const open = README.indexOf('```' + lang + '\n', at);
  expect(open, `a \`\`\`${lang} block after "${after}"`).toBeGreaterThan(-1);
  return README.slice(open + lang.length + 4, README.indexOf('\n```', open));
}

/** The inline code span that follows `after`, its line breaks read as spaces. */
function inline(after: string): string {
  const at = README.indexOf(after);
  expect(at, `the README has "${after}"`).toBeGreaterThan(-1);
  const found = /`([^`]+)`/.exec(README.slice(at + after.length));
  expect(found, `a code span after "${after}"`).not.toBeNull();
  return found![1]!.replace(/\s+/g, ' ');
}

/** Type errors in `files` (name → text), compiled in a merchant's strict ESM project. */
function typeErrors(files: Record<string, string>): string[] {
  expect(existsSync(fromRoot('build/src/react/index.d.ts')), 'the package is built (npm run build)').toBe(true);
  const virtual = new Map(Object.entries(files).map(([name, text]) => [fromRoot(`e2e/apps/${name}`), text]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.getSourceFile = (name, version, ...rest) => {
    const text = virtual.get(name);
    return text === undefined ? getSourceFile(name, version, ...rest) : ts.createSourceFile(name, text, version, true);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  // Each import resolved to the package's built types, not to src/.
  for (const name of virtual.keys()) {
    for (const statement of program.getSourceFile(name)!.statements) {
      if (!ts.isImportDeclaration(statement)) continue;
      const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      if (!specifier.startsWith('service-checkout')) continue;
      const resolved = ts.resolveModuleName(specifier, name, options, host).resolvedModule?.resolvedFileName;
      expect(resolved, specifier).toMatch(/\/build\/src\/.*\.d\.ts$/);
    }
  }
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? ts.getLineAndCharacterOfPosition(d.file, d.start!).line + 1 + ': ' : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the README, type-checked as written', () => {
  it('the React snippet compiles against service-checkout/react, and <Pay /> is a component', () => {
    const snippet = block('**React** (', 'jsx');
    expect(snippet).toMatch(/from 'service-checkout\/react'/);
    const use = "import { Pay } from './readme-react-snippet';\nexport const page = <Pay />;\n";
    expect(typeErrors({ 'readme-react-snippet.tsx': snippet, 'readme-react-use.tsx': use })).toEqual([]);
  });

  it('the Vue and npm import lines name what the package exports', () => {
    const vue = inline('**Vue 3**: ');
    const npm = inline('From npm: ');
    const names = (line: string, from: string) => {
      const found = new RegExp(`^import \\{ ([\\w, ]+) \\} from '${from}'$`).exec(line);
      expect(found, line).not.toBeNull();
      return found![1]!.split(',').map((name) => name.trim());
    };
    const imported = [...names(vue, 'service-checkout/vue'), ...names(npm, 'service-checkout')];
    expect(imported).toEqual(expect.arrayContaining(['useServiceCheckout', 'ServiceCheckoutButton', 'ServiceCheckout']));
    // Each used, so that a name the package does not export is an error, not an unused import.
    const text = `${vue};\n${npm};\nexport const used = [${imported.join(', ')}];\n`;
    expect(typeErrors({ 'readme-imports.ts': text })).toEqual([]);
  });

  it('a wrong option in the React snippet is a type error (the check can fail)', () => {
    const snippet = block('**React** (', 'jsx').replace('onSuccess:', 'onSucess:');
    expect(typeErrors({ 'readme-react-snippet.tsx': snippet }).join('\n')).toMatch(/onSucess/);
  });
});
