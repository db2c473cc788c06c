import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECRET_VARIABLES } from '@agent-sessions/slack-bot';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { configProblems } from '../../packages/slack-bot/test/config-problems.js';

// deploy/'s files ship placeholders where the secrets go. Applied unedited they must not start a bot that
// anyone can sign Slack requests for or read the metrics of: the bot refuses each placeholder it would be
// given, naming the variable and the rule, never the value.

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const MAIN = join(root, 'packages/slack-bot/dist/main.js');

/** What a template's placeholder looks like, read by this test on its own (not the bot's rule). */
const LOOKS_PLACEHOLDER = /replace-me|change-me|changeme|placeholder|example/i;

/** A valid bot's environment, every secret real-looking: one variable at a time is set to a placeholder. */
const VALID = {
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-a1b2c3d4e5f6',
  SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99aa7d3c85a5',
  AGENT_SERVICE_URL: 'http://127.0.0.1:4010',
  AGENT_API_KEY: 'sk_live_9c1f7e2a4b6d8f0a',
};

type Found = { file: string; name: string; value: string };

/** The Secret's stringData. */
function fromSecretYaml(file: string): Found[] {
  return parseAllDocuments(read(file))
    .map((doc) => doc.toJSON() as { kind?: string; stringData?: Record<string, string> })
    .filter((doc) => doc.kind === 'Secret')
    .flatMap((doc) => Object.entries(doc.stringData ?? {}).map(([name, value]) => ({ file, name, value })));
}

/** An env file's `NAME=value` lines (comments and blank values left out). */
function fromEnvFile(file: string): Found[] {
  return read(file)
    .split('\n')
    .map((line) => /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, name = '', value = '']) => ({ file, name, value: value.trim().replace(/^(['"])(.*)\1$/, '$2') }))
    .filter((found) => found.value !== '');
}

/** The bot service's environment in compose.yaml, a `${VAR:-default}` read as its default. */
function fromCompose(file: string): Found[] {
  const compose = parse(read(file)) as { services?: Record<string, { environment?: unknown }> };
  return Object.values(compose.services ?? {}).flatMap(({ environment }) => {
    const entries: Array<[string, string]> = Array.isArray(environment)
      ? environment.map((line: string) => line.split(/=(.*)/s).slice(0, 2) as [string, string])
      : Object.entries((environment ?? {}) as Record<string, string>);
    return entries
      .map(([name, value]) => ({ file, name, value: String(value).replace(/\$\{\w+:?-([^}]*)\}/g, '$1') }))
      .filter((found) => !found.value.includes('${'));
  });
}

const placeholders = [
  ...fromSecretYaml('deploy/bot/secret.yaml'),
  ...fromEnvFile('deploy/bot.env.example'),
  ...fromCompose('deploy/compose.yaml'),
].filter(
  (found) =>
    (SECRET_VARIABLES as readonly string[]).includes(found.name) && LOOKS_PLACEHOLDER.test(found.value),
);

describe("deploy/'s secret placeholders", () => {
  it('are found (the check below would pass on no file at all)', () => {
    expect(placeholders.map((found) => found.name)).toContain('SLACK_SIGNING_SECRET');
  });

  it.each(placeholders)(
    '$file: $name as shipped is refused, named with its rule, its value unquoted',
    (found) => {
      const message = configProblems({ ...VALID, [found.name]: found.value });
      expect(message).toMatch(new RegExp(`^${found.name}: ${found.name}.*placeholder`, 'm'));
      // The rule names the words a placeholder starts with; any other text would be the value itself.
      if (!/^(replace-me|change-me|changeme|placeholder|example)$/i.test(found.value))
        expect(message).not.toContain(found.value);
    },
  );

  it('the built bot given the signing secret of deploy/bot/secret.yaml exits 2, naming the variable', async () => {
    const signing = placeholders.find(
      (found) => found.name === 'SLACK_SIGNING_SECRET' && found.file.endsWith('.yaml'),
    );
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', ...VALID, SLACK_SIGNING_SECRET: signing?.value ?? '', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    // Exited, or serving (a bot that took the placeholder): killed then, so a failure doesn't hang.
    const code = await new Promise<number | null | 'serving'>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (/Slack request URL:/.test(output)) {
          child.kill('SIGKILL');
          resolve('serving');
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('exit', resolve);
    });
    expect({ code, output }).toEqual({
      code: 2,
      output: expect.stringMatching(/SLACK_SIGNING_SECRET: SLACK_SIGNING_SECRET is a template's placeholder/),
    });
    expect(output).not.toContain(VALID.AGENT_API_KEY);
  });
});
