import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../packages/slack-bot/src/index.js';
import { ROOT, read } from './markdown.js';

// docs/configuration.md's section on the bot, and the bot's .env.example, name exactly the variables the
// bot reads. Which variables those are comes from the bot itself: its configuration schema is run over an
// environment that records every name asked of it, so a variable added to (or dropped from) any part of the
// schema, wherever it is declared, is seen here without anyone listing it. The emulator's and the
// sandbox's sections name exactly the variables their sources read (each `EMULATOR_…` or `SANDBOX_…` name in
// their code, comments left out).

/** Every variable the bot's configuration reads from the environment it is given. */
function variablesTheBotReads(): Set<string> {
  const asked = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(target, name) {
      if (typeof name === 'string') asked.add(name);
      return Reflect.get(target, name);
    },
    has(target, name) {
      if (typeof name === 'string') asked.add(name);
      return Reflect.has(target, name);
    },
  });
  loadConfig(env);
  // Only environment variables' names: a library probing the object (then, toJSON…) is not asking for one.
  return new Set([...asked].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name)));
}

/** A `## <title>` section of docs/configuration.md, up to the next `## ` heading. */
function section(title: string): string {
  const text = read('docs/configuration.md');
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, `docs/configuration.md has a "## ${title}" section`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The variables a section documents: the names in backticks in the first cell of its tables' rows. */
function documentedIn(section: string): Set<string> {
  const names = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split('|')[1] ?? '';
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1] ?? '');
  }
  return names;
}

/** The variables .env.example sets, commented out or not: each `NAME=` at a line's start. */
function inEnvExample(): Set<string> {
  const text = read('packages/slack-bot/.env.example');
  return new Set([...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1] ?? ''));
}

const sorted = (names: Iterable<string>) => [...names].sort();
const missingFrom = (from: Set<string>, names: Set<string>) => sorted([...names].filter((n) => !from.has(n)));

describe('docs/configuration.md and .env.example against the bot configuration', () => {
  const botReads = variablesTheBotReads();
  const documented = documentedIn(section('The bot'));

  it('reads the bot configuration itself', () => {
    // The schema's core: if these are not seen, the recording environment stopped working, not the docs.
    expect(sorted(botReads)).toEqual(
      expect.arrayContaining(['SLACK_BOT_TOKEN', 'AGENT_SERVICE_URL', 'DATABASE_URL']),
    );
  });

  it('documents every variable the bot reads', () => {
    expect(missingFrom(documented, botReads)).toEqual([]);
  });

  it('documents, for the bot, only variables the bot reads', () => {
    expect(missingFrom(botReads, documented)).toEqual([]);
  });

  it('lists every variable the bot reads in .env.example', () => {
    expect(missingFrom(inEnvExample(), botReads)).toEqual([]);
  });

  it('sets in .env.example only variables the bot reads, or npm start reads (as documented)', () => {
    const known = new Set([...botReads, ...documentedIn(section('`npm start`'))]);
    expect(missingFrom(known, inEnvExample())).toEqual([]);
  });
});

/** Every `<PREFIX>_…` name in a package's sources, comments left out: the variables it reads. */
function namesInSources(dir: string, prefix: string): Set<string> {
  const files = readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  const name = new RegExp(`\\b${prefix}_[A-Z0-9_]*[A-Z0-9]\\b`, 'g');
  return new Set(
    files.flatMap((file) =>
      readFileSync(join(ROOT, dir, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line))
        .flatMap((line) => line.replace(/\/\/.*$/, '').match(name) ?? []),
    ),
  );
}

describe('docs/configuration.md against the emulator and the sandbox', () => {
  for (const [title, dir, prefix, known] of [
    ['The emulator', 'packages/emulator/src', 'EMULATOR', 'EMULATOR_FAULT_RATE_429'],
    ['The Slack sandbox', 'packages/slack-sandbox/src', 'SANDBOX', 'SANDBOX_RATE_TIER1'],
  ] as const) {
    it(`"${title}" documents exactly the variables its sources read`, () => {
      const reads = namesInSources(dir, prefix);
      expect(sorted(reads)).toContain(known);
      const documented = documentedIn(section(title));
      expect(missingFrom(documented, reads)).toEqual([]);
      expect(missingFrom(reads, documented)).toEqual([]);
    });
  }
});
