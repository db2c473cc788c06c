import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The bot's floors as docs/ARCHITECTURE.md draws them, read from the sources' own imports: a move or an
// import that breaks one fails here, naming the file and what it imported.
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each source file (relative to src/) with what it imports: our files relative to src/, packages by name. */
const imports = new Map(
  sources(SRC).map((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/from '([^']+)'/g)].map(([, spec = '']) =>
      spec.startsWith('.') ? relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '.ts') : spec,
    );
    return [relative(SRC, file), specifiers] as const;
  }),
);

/** `file -> import` for every import of files under `from` that `forbidden` says no to. */
function breaches(from: string, forbidden: (target: string) => boolean): string[] {
  return [...imports]
    .filter(([file]) => file.startsWith(from))
    .flatMap(([file, targets]) => targets.filter(forbidden).map((target) => `${file} -> ${target}`));
}

/** Each circle of imports among our files, as `a -> b -> … -> a`, found by a depth-first walk. */
function importCycles(): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    const at = path.indexOf(file);
    if (at >= 0) {
      cycles.push([...path.slice(at), file].join(' -> '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const target of imports.get(file) ?? []) if (imports.has(target)) visit(target);
    path.pop();
    done.add(file);
  };
  for (const file of imports.keys()) visit(file);
  return cycles;
}

/**
 * The packages a module loads when imported, through our files it imports: static imports only, as
 * `import()` loads when it runs. `import type` and `export type` are erased; an import naming only types
 * inline (`import { type X }`) is kept for its side effects (verbatimModuleSyntax), so it counts.
 */
function packagesLoadedFrom(entry: string): Set<string> {
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^;'"]*?\sfrom\s+)?'([^']+)'/g;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const [, , type, spec = ''] of text.matchAll(statement)) {
      if (type) continue;
      if (!spec.startsWith('.')) packages.add(spec);
      else visit(relative(SRC, resolve(dirname(join(SRC, file)), spec)).replace(/\.js$/, '.ts'));
    }
  };
  visit(entry);
  return packages;
}

const under =
  (...dirs: string[]) =>
  (target: string) =>
    dirs.some((dir) => target.startsWith(dir));

describe("the bot's layers", () => {
  it('reads the sources (the test would pass vacuously on an empty tree)', () => {
    expect(imports.get('services/people/answering.ts')).toContain('services/slack-out/thread/index.ts');
  });

  it('listeners see services only: never the store, the wiring or the Slack-out machinery', () => {
    expect(breaches('listeners/', under('store/', 'wiring/', 'services/slack-out/'))).toEqual([]);
  });

  it('blocks are pure builders: no services, no store repositories, no Slack client', () => {
    const impure = (t: string) =>
      t.startsWith('services/') ||
      (t.startsWith('store/') && t !== 'store/records.ts') ||
      t === '@slack/bolt';
    expect(breaches('blocks/', impure)).toEqual([]);
  });

  it('services/ folders use only the ones below them', () => {
    const S = 'services/';
    expect(
      breaches(`${S}ops/`, under(`${S}people/`, `${S}approvals/`, `${S}following/`, `${S}slack-out/`)),
    ).toEqual([]);
    expect(breaches(`${S}slack-out/`, under(`${S}people/`, `${S}approvals/`, `${S}following/`))).toEqual([]);
    expect(breaches(`${S}following/`, under(`${S}people/`, `${S}approvals/`))).toEqual([]);
    expect(breaches(`${S}people/`, under(`${S}approvals/`, `${S}following/`))).toEqual([]);
    // Service keys sit under people/ and following/ (which use them), over slack-out/ and ops/.
    expect(breaches(`${S}keys/`, under(`${S}people/`, `${S}approvals/`, `${S}following/`))).toEqual([]);
    expect(breaches(`${S}slack-out/`, under(`${S}keys/`))).toEqual([]);
    expect(breaches(`${S}ops/`, under(`${S}keys/`))).toEqual([]);
    // code-channels/ sits over people/ (it steers through it) and slack-out/; the publisher is handed it.
    const code = `${S}code-channels/`;
    expect(breaches(S, under(code)).filter((b) => !b.startsWith(code))).toEqual([]);
    // workflows/ (Workflow Builder's steps) starts sessions through people/: nothing below uses it.
    expect(breaches(S, under(`${S}workflows/`)).filter((b) => !b.startsWith(`${S}workflows/`))).toEqual([]);
    // mcp/ (agent hosts over MCP) acts through people/ as a click does: nothing below uses it.
    expect(breaches(S, under(`${S}mcp/`)).filter((b) => !b.startsWith(`${S}mcp/`))).toEqual([]);
    expect(breaches(`${S}mcp/`, under(`${S}installs/`, `${S}workflows/`, `${S}code-channels/`))).toEqual([]);
    // installs/ (OAuth) sits on top: it builds per-workspace Slack-out parts; nothing uses it back.
    expect(breaches(S, under(`${S}installs/`)).filter((b) => !b.startsWith(`${S}installs/`))).toEqual([]);
    expect(breaches(S, under('listeners/', 'wiring/', 'app.ts'))).toEqual([]);
  });

  // Slack-out in three floors: the paced queue (and the client it calls) at the bottom; the classic card and
  // thread over it; Slack's agent surface (streams, agent sessions) on top, falling back to the thread.
  it('slack-out/ floors: outbound/ under thread/ under agent-surface/', () => {
    const O = 'services/slack-out/';
    expect(breaches(`${O}outbound/`, under(`${O}thread/`, `${O}agent-surface/`))).toEqual([]);
    expect(breaches(`${O}thread/`, under(`${O}agent-surface/`))).toEqual([]);
  });

  // A folder with an index.ts shows a small public face: the rest of its files are its own business and
  // may change without another folder noticing. store/ and blocks/ are left out: each is a shelf of
  // independent modules (a repository per table, a builder per message), imported one by one, whose
  // index.ts is the package's public export.
  it('a folder with an index.ts is imported from outside only through it', () => {
    const faced = [...imports.keys()]
      .filter((file) => file.endsWith('/index.ts') && !/^(store|blocks)\//.test(file))
      .map((file) => file.slice(0, -'index.ts'.length));
    expect(faced).toEqual(
      expect.arrayContaining([
        'wiring/',
        'config/',
        'services/keys/',
        'services/slack-out/outbound/',
        'services/slack-out/thread/',
        'services/slack-out/agent-surface/',
        'services/mcp/',
      ]),
    );
    const reachingIn = [...imports].flatMap(([file, targets]) =>
      targets
        .filter((target) =>
          faced.some((dir) => target.startsWith(dir) && !file.startsWith(dir) && target !== `${dir}index.ts`),
        )
        .map((target) => `${file} -> ${target}`),
    );
    expect(reachingIn).toEqual([]);
  });

  // Each service declares the settings it takes; config/ reads them from the environment and the
  // composition hands them over, so a service is built in a test with plain values and no environment.
  it('services, blocks, listeners and the store never import config/: settings arrive as values', () => {
    const floors = ['services/', 'blocks/', 'listeners/', 'store/'];
    expect(floors.flatMap((floor) => breaches(floor, under('config/')))).toEqual([]);
  });

  it('no import circle among the sources: the module graph of src/ is walked depth first', () => {
    expect(importCycles()).toEqual([]);
  });

  // Every dependency arrives at construction: a part reaching into another's field to set a property
  // (`out.poster.owns = …`, `this.deps.poster.onCannotPost = …`) hides who gives it what.
  it('no assignment to a property of another object’s field after construction', () => {
    const reaching = /\b[\w$]+\.#?[\w$]+\.#?[\w$]+\s*(?:[-+*/%&|^]|\?\?|\|\||&&)?=(?![=>])/;
    const found = sources(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          reaching.test(line.replace(/\/\/.*$/, ''))
            ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });

  // In the composition, no part built gets a property set from outside either (`follower.on = …`): what
  // it can only learn once running is named here, with why.
  it('the composition sets no property of a part it built, but the named few', () => {
    const named = [
      // Who the bot is and its workspace, known only once Slack answers auth.test after the start.
      'wiring/start-bot.ts: identity.botUserId',
      'wiring/start-bot.ts: audit.teamId',
      // Bolt's HTTPReceiver takes no wrapper for its request listener: the composition wraps its own.
      'app.ts: receiver.requestListener',
    ];
    const setting =
      /(?<![.\w$])(?!this\b)([A-Za-z_$][\w$]*\.#?[\w$]+)\s*(?:[-+*/%&|^]|\?\?|\|\||&&)?=(?![=>])/;
    const composition = sources(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => file.startsWith('wiring/') || ['app.ts', 'main.ts', 'index.ts'].includes(file));
    expect(composition).toContain('wiring/start-bot.ts');
    const found = composition.flatMap((file) =>
      readFileSync(join(SRC, file), 'utf8')
        .split('\n')
        .flatMap((line) => {
          const target = setting.exec(line.replace(/\/\/.*$/, ''))?.[1];
          return target ? [`${file}: ${target}`] : [];
        }),
    );
    expect(found.sort()).toEqual([...named].sort());
  });

  // A bot start loads what its configuration uses: these are imported with `import()` where they are
  // needed (the store's driver, the MCP SDK on /mcp's first request, OpenTelemetry's SDK with traces on).
  it('main.ts loads no optional package before the configuration asks for it', () => {
    const optional = [
      'pg',
      '@electric-sql/pglite',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/node',
    ];
    const loaded = packagesLoadedFrom('main.ts');
    expect(loaded).toContain('@slack/bolt');
    expect(optional.filter((pkg) => loaded.has(pkg))).toEqual([]);
    expect(
      [...loaded].filter((pkg) => pkg.startsWith('@opentelemetry/') && pkg !== '@opentelemetry/api'),
    ).toEqual([]);
  });

  it('services/ keeps at most 8 files at its top level', () => {
    const top = readdirSync(join(SRC, 'services'), { withFileTypes: true }).filter((e) => e.isFile());
    expect(top.length).toBeLessThanOrEqual(8);
  });
});
