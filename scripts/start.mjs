// `npm start`: the Slack bot on embedded defaults. Whatever isn't configured runs locally in this process:
// the Agent Session Service emulator (no AGENT_SERVICE_URL) and the Slack sandbox (no Slack tokens);
// the store is PGlite in DATA_DIR (./data) unless DATABASE_URL is set.
// Everything it starts for local use listens on the loopback and uses secrets made at this start: no one
// else on the network can reach the bot, and no published constant signs as the sandbox.
import { randomBytes } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { parseQuirks, QuirksError, scenarioPrompts, startEmulator } from '../packages/emulator/dist/index.js';
import { loadConfigOrExit, mintMcpToken, startBot } from '../packages/slack-bot/dist/index.js';
import {
  functionsFromManifest,
  oauthOptionsFromEnv,
  startSandbox,
} from '../packages/slack-sandbox/dist/index.js';

const out = (line) => process.stdout.write(`${line}\n`);

const env = { ...process.env };
const usesSandbox = !env.SLACK_BOT_TOKEN && !env.SLACK_APP_TOKEN;
// The sandbox's Bob is its approver, so the user switcher's three people behave as their names say.
if (usesSandbox && env.AGENT_APPROVERS === undefined) env.AGENT_APPROVERS = 'U0BOB';
// With the embedded emulator, the Messages tab suggests its scenarios.
if (!env.AGENT_SERVICE_URL && env.AGENT_SUGGESTED_PROMPTS === undefined)
  env.AGENT_SUGGESTED_PROMPTS = JSON.stringify(scenarioPrompts());
const config = loadConfigOrExit(env);
// The bot's HOST default (0.0.0.0) is for production; a bot driven by the local sandbox stays local.
if (usesSandbox) {
  if (env.HOST && !['127.0.0.1', 'localhost', '::1'].includes(env.HOST))
    process.stderr.write(`HOST=${env.HOST} ignored: a bot wired to the local sandbox listens on 127.0.0.1\n`);
  config.host = '127.0.0.1';
}

const port = (name, fallback) => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    process.stderr.write(`Configuration error:\n${name}: must be a port number 0..65535, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
};

/** EMULATOR_QUIRKS makes the embedded emulator as strange as the spec allows (see its README). */
const quirks = () => {
  try {
    return parseQuirks(process.env.EMULATOR_QUIRKS);
  } catch (error) {
    if (!(error instanceof QuirksError)) throw error;
    process.stderr.write(`Configuration error:\n${error.message}\n`);
    process.exit(2);
  }
};

// The sandbox keeps its workspace in memory, the emulator its sessions, and both are made anew at each
// start with new secrets, so the bot's store for them is too: kept, it would hold Slack tokens no key of
// this start can read and sessions whose cards, threads and service sessions are gone (errors in the log,
// ghosts in App Home). Keeping the whole world instead would mean persisting the sandbox and the emulator,
// scripted agents mid-run included, for a place to try the bot. So the store is a folder of its own in
// DATA_DIR, emptied at each start; DATA_DIR's own store (a real Slack's) and DATABASE_URL's database are
// never touched, and a folder there that npm start did not make is refused, not emptied.
const SANDBOX_STORE_NOTE = 'ABOUT.txt';
const sandboxStore = (dataDir) => {
  const dir = resolve(dataDir, 'sandbox');
  const note = join(dir, SANDBOX_STORE_NOTE);
  if (existsSync(dir) && !existsSync(note) && readdirSync(dir).length > 0) {
    process.stderr.write(
      `Configuration error:\n${dir} holds files npm start did not make (it has no ${SANDBOX_STORE_NOTE}): move them, or set DATA_DIR to another folder\n`,
    );
    process.exit(2);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    note,
    "npm start's store for its local Slack sandbox: emptied at each start, as the sandbox's workspace and the emulator's sessions are made anew.\n",
  );
  return join(dir, 'store');
};
const store = !config.slack && !config.databaseUrl ? sandboxStore(config.dataDir) : undefined;

const stops = [];
let service = config.service;
if (!service) {
  // A key of this start only, unless EMULATOR_API_KEYS names some (the sandbox page's sessions panel
  // reads the emulator's key-less admin routes, so it needs none).
  const keys = (process.env.EMULATOR_API_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const apiKeys = keys.length > 0 ? keys : [`emu_${randomBytes(24).toString('hex')}`];
  const emulator = await startEmulator({
    port: port('EMULATOR_PORT', 4010),
    host: process.env.EMULATOR_HOST || '127.0.0.1',
    apiKeys,
    quirks: quirks(),
  });
  stops.push(() => emulator.close());
  service = { url: emulator.url, apiKey: apiKeys[0] };
  out(
    `Agent Session Service: the local emulator at ${emulator.url}, ${keys.length > 0 ? 'its key the first of EMULATOR_API_KEYS' : 'with a key new at each start (EMULATOR_API_KEYS chooses one)'}; set AGENT_SERVICE_URL and AGENT_API_KEY for a real one`,
  );
} else out(`Agent Session Service: ${service.url}`);

// Service keys linked in App Home are stored encrypted (AGENT_KEY_ENCRYPTION_KEY). With the embedded
// emulator, whose keys and accounts live only as long as this start, the encryption key does too: made
// here, held in memory, never written. With a real service, set AGENT_KEY_ENCRYPTION_KEY to link keys.
if (!config.service && !config.keys?.encryptionKey) {
  config.keys = { ...config.keys, encryptionKey: randomBytes(32).toString('base64') };
  out(
    'Service keys: linked in App Home, encrypted with a key of this start only (AGENT_KEY_ENCRYPTION_KEY keeps them)',
  );
}

let slack = config.slack;
let sandbox;
// The local sandbox plays a Slack the app is distributed in (OAuth, two workspaces) unless
// SANDBOX_OAUTH=off asks for the single-workspace token instead.
const sandboxOAuth = () => {
  const off = ['0', 'off', 'false', 'no'].includes((env.SANDBOX_OAUTH ?? '').toLowerCase());
  try {
    return off ? undefined : oauthOptionsFromEnv({ ...env, SANDBOX_OAUTH: 'on' });
  } catch (error) {
    process.stderr.write(`Configuration error:\n${error.message}\n`);
    process.exit(2);
  }
};
if (!slack) {
  const oauth = sandboxOAuth();
  sandbox = await startSandbox({
    port: port('SANDBOX_PORT', 4020),
    host: process.env.SANDBOX_HOST || '127.0.0.1',
    ...(config.service ? {} : { emulatorUrl: service.url }),
    ...(oauth ? { oauth } : {}),
    // Workflow Builder's steps as the app's manifest declares them: the page runs them as workflows.
    functions: functionsFromManifest(
      parse(readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8')),
    ),
  });
  stops.push(() => sandbox.close());
  if (sandbox.oauth) {
    // Slack's tokens are stored encrypted too. The sandbox's workspace is installed anew at each start, so
    // with no AGENT_KEY_ENCRYPTION_KEY a key of this start serves (then keys linked in App Home last only
    // as long as this start, even with a real service: AGENT_KEY_ENCRYPTION_KEY keeps them).
    if (!config.keys?.encryptionKey) {
      config.keys = { ...config.keys, encryptionKey: randomBytes(32).toString('base64') };
      out(
        'Slack tokens and service keys: encrypted with a key of this start only (AGENT_KEY_ENCRYPTION_KEY keeps them)',
      );
    }
    // The bot reads the app's OAuth settings as in production; the state secret is new at each start.
    // The local sandbox's workspaces are all this start's own: each is admitted and lent the service key,
    // unless SLACK_ALLOWED_TEAMS or AGENT_API_KEY_TEAMS say otherwise.
    const oauthConfig = loadConfigOrExit({
      ...env,
      SLACK_ALLOWED_TEAMS: env.SLACK_ALLOWED_TEAMS ?? '*',
      AGENT_API_KEY_TEAMS: env.AGENT_API_KEY_TEAMS ?? '*',
      AGENT_KEY_ENCRYPTION_KEY: config.keys.encryptionKey,
      SLACK_CLIENT_ID: sandbox.oauth.clientId,
      SLACK_CLIENT_SECRET: sandbox.oauth.clientSecret,
      SLACK_STATE_SECRET: randomBytes(24).toString('hex'),
      SLACK_SIGNING_SECRET: sandbox.signingSecret,
      SLACK_API_URL: sandbox.apiUrl,
      SLACK_AUTHORIZE_URL: sandbox.oauth.authorizeUrl,
    });
    slack = oauthConfig.slack;
    config.keys = oauthConfig.keys;
  } else slack = { botToken: sandbox.botToken, signingSecret: sandbox.signingSecret, apiUrl: sandbox.apiUrl };
  out(
    `Slack: the local sandbox at ${sandbox.url} (set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET or SLACK_APP_TOKEN for a real workspace)`,
  );
}

// With the sandbox the screen is a person's: the banner (and, in a terminal, the sandbox REPL). The bot's
// JSON log goes to a file in DATA_DIR, in a terminal or not, each start's after the last's; with a real
// Slack it goes to stdout, as in production.
const repl = Boolean(sandbox && process.stdin.isTTY);
let logFile;
if (sandbox) {
  mkdirSync(config.dataDir, { recursive: true });
  logFile = join(config.dataDir, 'bot.log');
}
const log = logFile ? createWriteStream(logFile, { flags: 'a' }) : undefined;
const bot = await startBot(
  { ...config, ...(store ? { dataDir: store } : {}), service, slack },
  log ? { logDestination: log } : {},
);
stops.unshift(() => bot.stop());
// Last, the log to its end: the bot writes its last line as it stops, and process.exit drops what a file
// stream still buffers.
if (log) stops.push(() => new Promise((resolve) => log.end(resolve)));
if (sandbox?.oauth && bot.url) {
  // Installed as a person installs it: the bot's /slack/install, Allow on the sandbox's page, the redirect.
  sandbox.oauth.setRedirectUrls([`${bot.url}/slack/oauth_redirect`]);
  const installed = await sandbox.oauth.install(`${bot.url}/slack/install`, {
    team: sandbox.workspace.seed.teamId,
  });
  if (installed.status !== 200) {
    process.stderr.write(
      `The app could not be installed in the sandbox (${installed.status}): see the bot's log\n`,
    );
    for (const stop of stops) await stop().catch(() => {});
    process.exit(1);
  }
  out(
    `Slack app: installed in the sandbox's workspace through OAuth; add it to another at ${bot.url}/slack/install (SANDBOX_OAUTH=off: one bot token instead)`,
  );
}
if (store)
  out(
    `Store: PGlite in ${store}, new at each start as the sandbox's workspace is (a real Slack's store stays in DATA_DIR)`,
  );
else out(`Store: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`}`);
if (logFile) out(`Bot log: ${logFile} (tail -f it to watch)`);
if (bot.eventsUrl)
  out(`Bot: Slack request URL ${bot.eventsUrl} · health ${bot.url}/healthz · metrics ${bot.url}/metrics`);
else out('Bot: connected to Slack in Socket Mode');
if (sandbox && bot.eventsUrl) {
  sandbox.connectBot(bot.eventsUrl);
  out('');
  out(
    `Open ${sandbox.url}/ — a Slack channel in your browser, wired to the bot. Type /agent start scenario:approval ship it`,
  );
  // Who is in which channel is the sandbox's seed; a person starts a session only in a channel they are
  // in, and (under the default policy) its starter and the approvers answer and steer it.
  const bob =
    env.AGENT_APPROVERS === 'U0BOB'
      ? 'an approver: answers and steers any session'
      : `in #agents; approvers: ${env.AGENT_APPROVERS || 'none'}`;
  out(
    `Act as Alice (in #agents and #general: starts sessions, answers and steers her own), Bob (${bob}) or Carol (in #general, not #agents: starts sessions in #general, is refused in #agents).`,
  );
  if (config.mcp && bot.url) await printMcpAccess(bot, sandbox.workspace.seed.teamId);
  if (repl) {
    const { startRepl } = await import('./sandbox-repl.mjs');
    startRepl({ sandbox, eventsUrl: bot.eventsUrl, channel: 'C0AGENTS' });
  }
}

/**
 * How to connect an agent host to the bot's /mcp, with a token made for the sandbox's Alice as App Home
 * makes one. Printed on the screen only: the token is a secret, so it never goes to the bot's log.
 */
async function printMcpAccess(bot, teamId) {
  const { token, expiresAt } = await mintMcpToken(bot.store, {
    teamId,
    userId: 'U0ALICE',
    days: config.mcp.tokenDays,
    isolated: Boolean(slack.oauth),
  });
  out('');
  out(`Agent hosts over MCP (docs/mcp.md): ${bot.url}/mcp`);
  out(`  Alice's token (until ${expiresAt}): ${token}`);
  out(
    `  claude mcp add --transport http agent-sessions ${bot.url}/mcp --header "Authorization: Bearer ${token}"`,
  );
}

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  for (const stop of stops) await stop().catch(() => {});
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
