import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every package a package's shipped code imports is one it declares: an import that only resolves because
// npm hoisted someone else's dependency works here and breaks in a user's install (the sandbox once
// imported hono without declaring it). Type-only imports vanish from the output and are left out.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILTINS = new Set(builtinModules);

/** Where each package's shipped sources are, and which of its declared dependencies may serve them. */
const PACKAGES: Record<
  string,
  { dirs: string[]; allowed: Array<'dependencies' | 'peerDependencies' | 'devDependencies'> }
> = {
  core: { dirs: ['src'], allowed: ['dependencies'] },
  emulator: { dirs: ['src'], allowed: ['dependencies'] },
  'slack-bot': { dirs: ['src'], allowed: ['dependencies'] },
  'slack-sandbox': { dirs: ['src'], allowed: ['dependencies'] },
  // The node is bundled at build time: n8n supplies n8n-workflow, the rest goes into the bundle.
  'n8n-node': { dirs: ['nodes', 'credentials'], allowed: ['peerDependencies', 'devDependencies'] },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The packages a file imports at run time: `import … from 'x'`, `export … from 'x'`, `import('x')`. */
function runtimeImports(text: string): string[] {
  const out: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'([^']+)'/gms;
  for (const m of text.matchAll(statement)) {
    if (m[2]) continue; // import type … / export type …
    const names = m[3] ?? '';
    // `import { type A, type B } from 'x'` is type-only too.
    const inner = /^\{([\s\S]*)\}$/.exec(names.trim())?.[1];
    if (inner?.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '))) continue;
    out.push(m[4] as string);
  }
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) out.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) out.push(m[1] as string);
  return out;
}

const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || specifier.startsWith('/'))
    return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
  return BUILTINS.has(name) ? undefined : name;
};

describe('declared dependencies', () => {
  it('reads the import forms it must (a check that cannot fail would prove nothing)', () => {
    const text = [
      "import { a } from 'alpha';",
      "import type { B } from 'beta';",
      "import { type C, type D } from 'gamma';",
      "export { e } from 'delta';",
      "import 'epsilon/side-effect';",
      "const z = await import('zeta');",
      "import {\n  f,\n  type G,\n} from '@scope/eta/sub';",
    ].join('\n');
    expect(runtimeImports(text).map(packageOf)).toEqual(['alpha', 'delta', '@scope/eta', 'epsilon', 'zeta']);
  });

  for (const [name, { dirs, allowed }] of Object.entries(PACKAGES)) {
    it(`${name}: every package its shipped code imports is declared`, () => {
      const dir = join(ROOT, 'packages', name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      const declared = new Set(allowed.flatMap((field) => Object.keys(manifest[field] ?? {})));
      const files = dirs.flatMap((d) => sourceFiles(join(dir, d)));
      expect(files.length).toBeGreaterThan(0);
      const undeclared: string[] = [];
      for (const file of files) {
        for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
          const pkg = packageOf(specifier);
          if (pkg && !declared.has(pkg)) undeclared.push(`${relative(ROOT, file)}: ${pkg}`);
        }
      }
      expect(undeclared).toEqual([]);
    });
  }
});
