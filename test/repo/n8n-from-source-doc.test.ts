import { describe, expect, it } from 'vitest';
import { SCENARIO_NAMES } from '../../packages/emulator/src/agent/scenarios.js';
import { read } from './markdown.js';

// packages/n8n-node/docs/from-source.md has a reader run the emulator, a local n8n and the node in
// terminals of their own, often beside `npm start`. What it says to type must work as typed: every
// scenario it names is one the emulator has, and the emulator's port is one that `npm start` leaves free,
// the same in each command and URL of the page.

const PAGE = 'packages/n8n-node/docs/from-source.md';

/** The ports `npm start` takes: its emulator's and sandbox's (scripts/start.mjs), and the bot's PORT. */
function npmStartPorts(): number[] {
  const embedded = [...read('scripts/start.mjs').matchAll(/port\('[A-Z_]+', (\d+)\)/g)].map((m) =>
    Number(m[1]),
  );
  const bot = /wholeNumber\('PORT'\)[^\n]*\.default\((\d+)\)/.exec(
    read('packages/slack-bot/src/config/http.ts'),
  );
  return [...embedded, Number(bot?.[1])];
}

/** The scenarios the page names: its `scenario:<name>` words and the list it gives of them. */
function scenariosNamed(text: string): string[] {
  const words = [...text.matchAll(/scenario:([a-z_]+)/g)].map((m) => m[1] as string);
  const list = /lists them:([^)]*)\)/.exec(text)?.[1] ?? '';
  return [...words, ...[...list.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string)];
}

describe('trying the n8n node from source', () => {
  const page = read(PAGE);

  it('names only scenarios the emulator has', () => {
    const named = scenariosNamed(page);
    expect(named.length).toBeGreaterThanOrEqual(3);
    for (const name of named) expect(SCENARIO_NAMES, name).toContain(name);
  });

  it('runs the emulator on a port npm start leaves free, and points n8n at that port', () => {
    const taken = npmStartPorts();
    expect(taken).toEqual(expect.arrayContaining([4010, 4020, 3000]));
    const ports = [...page.matchAll(/--port (\d+)/g)].map((m) => Number(m[1]));
    expect(ports).toHaveLength(1);
    const [port] = ports;
    expect(taken).not.toContain(port);
    const urls = [...page.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
    expect(urls.length).toBeGreaterThanOrEqual(3);
    expect(new Set(urls)).toEqual(new Set([port]));
  });
});
