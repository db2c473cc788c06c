import { randomBytes } from 'node:crypto';
import { startEmulatorHere, type TestEmulator } from '@agent-sessions/emulator/testing';
import {
  type BotTuning,
  loadConfig,
  openStore,
  type RunningBot,
  type Store,
  startBot,
} from '@agent-sessions/slack-bot';
import {
  type OAuthOptions,
  type RunningSandbox,
  type SandboxMessage,
  type SandboxOptions,
  type SlackDriver,
  startSandbox,
} from '@agent-sessions/slack-sandbox';
import { scratchStore } from './database.js';
import { API_KEY, captureLogs, FAST, slackAt, textOf, WAIT_MS } from './harness.js';

// A bot distributed through Slack's OAuth against the sandbox playing Slack's side: two
// workspaces (the sandbox's own and Northwind), installed as a browser installs an app.

export const HOME = { team: 'T0SANDBOX', channel: 'C0AGENTS', starter: 'U0ALICE' } as const;
export const NORTH = { team: 'T0NORTH', channel: 'C0NAGENTS', starter: 'U0DANA' } as const;
export const GLOBEX_SALES = { team: 'T0GSALES', channel: 'C0GDEALS', starter: 'U0GINA' } as const;
export type Place = { team: string; channel: string; starter: string };

/** A state secret of the run: random, so finding it in a log or page means it leaked. */
export const STATE_SECRET = `state_${randomBytes(16).toString('hex')}`;
/** The key the world's Slack tokens are encrypted with at rest (random per run). */
export const ENCRYPTION_KEY = randomBytes(32).toString('base64');

export interface OAuthWorld {
  emulator: TestEmulator;
  sandbox: RunningSandbox;
  bots: RunningBot[];
  /**
   * Starts a replica (its own store on `databaseUrl`, or the world's shared store); `env` over the world's
   * (a blank value unsets one), as a bot restarted with other settings.
   */
  addBot(tuning?: BotTuning, env?: Record<string, string>): Promise<RunningBot>;
  /** Installs the app in a workspace the way a browser does: /slack/install → Allow → the redirect. */
  install(
    team: string,
    options?: { cancel?: boolean; bot?: RunningBot },
  ): Promise<{ status: number; body: string }>;
  driver(team: string, bot?: RunningBot): SlackDriver;
  /** `/agent start …` in the workspace's #agents; waits for the card; the session id and card ts. */
  start(place: Place, text: string, bot?: RunningBot): Promise<{ sessionId: string; cardTs: string }>;
  secrets(): string[];
  stop(): Promise<void>;
}

export async function startOAuthWorld(
  options: {
    oauth?: OAuthOptions;
    databaseUrl?: string;
    tuning?: BotTuning;
    env?: Record<string, string>;
    /** The sandbox's workspaces beside its own (default: Northwind). */
    workspaces?: SandboxOptions['workspaces'];
    /** The sandbox's own workspace (default: its usual one, T0SANDBOX). */
    seed?: SandboxOptions['seed'];
  } = {},
): Promise<OAuthWorld> {
  const emulator = await startEmulatorHere({ apiKeys: [API_KEY], speed: 10 });
  const slack = slackAt(10);
  const sandbox = await startSandbox({
    rateLimits: slack.limits,
    triggerTtlMs: 10_000,
    waitTimeoutMs: WAIT_MS,
    oauth: options.oauth ?? true,
    ...(options.workspaces ? { workspaces: options.workspaces } : {}),
    ...(options.seed ? { seed: options.seed } : {}),
  });
  const oauth = sandbox.oauth;
  if (!oauth) throw new Error('the sandbox was started without OAuth');
  // One store for every bot of the world (one process), or with `databaseUrl` a store per bot, as replicas.
  const shared = options.databaseUrl ? undefined : await scratchStore();
  const stores: Store[] = [];
  const bots: RunningBot[] = [];
  const env = {
    SLACK_CLIENT_ID: oauth.clientId,
    SLACK_CLIENT_SECRET: oauth.clientSecret,
    SLACK_STATE_SECRET: STATE_SECRET,
    SLACK_SIGNING_SECRET: sandbox.signingSecret,
    SLACK_API_URL: sandbox.apiUrl,
    SLACK_AUTHORIZE_URL: oauth.authorizeUrl,
    AGENT_SERVICE_URL: emulator.url,
    AGENT_API_KEY: API_KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    FOLLOW_REQUESTS_PER_SECOND: '50',
    // Slack's tokens are stored encrypted with it (OAuth requires one).
    AGENT_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    // Every workspace of the sandbox admitted, and lent the operator's key, unless a suite says otherwise.
    SLACK_ALLOWED_TEAMS: '*',
    AGENT_API_KEY_TEAMS: '*',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  };
  const world: OAuthWorld = {
    emulator,
    sandbox,
    bots,
    async addBot(tuning = {}, changed = {}) {
      const config = loadConfig({ ...env, ...changed });
      if (!config.slack || !config.service) throw new Error('the world configures Slack and the service');
      const store = shared?.store ?? (await openStore({ databaseUrl: options.databaseUrl as string }));
      if (!shared) stores.push(store);
      const bot = await startBot(
        { ...config, slack: config.slack, service: config.service },
        {
          ...FAST,
          outbound: slack.outbound,
          ...options.tuning,
          ...tuning,
          store,
          replicaId: `replica-${bots.length + 1}`,
          logDestination: captureLogs(),
          logLevel: 'debug',
        },
      );
      bots.push(bot);
      // The app's Redirect URLs: every replica's (any of them may get the browser back).
      oauth.setRedirectUrls(bots.map((b) => `${b.url}/slack/oauth_redirect`));
      return bot;
    },
    async install(team, { cancel = false, bot = bots[0] } = {}) {
      if (!bot) throw new Error('no bot to install');
      const result = await oauth.install(`${bot.url}/slack/install`, { team, cancel });
      return { status: result.status, body: result.body };
    },
    driver: (team, bot = bots[0]) => sandbox.driverFor(team, bot?.eventsUrl as string),
    async start(place, text, bot) {
      const ws = sandbox.workspaceFor(place.team);
      const driver = world.driver(place.team, bot);
      const card = await newCardIn(ws, place.channel, async () => {
        const response = await driver.command({
          user: place.starter,
          channel: place.channel,
          text: `start ${text}`,
        });
        if (response.status !== 200) throw new Error(`/agent start answered ${response.status}`);
      });
      const sessionId = /session `([^`]+)`/.exec(textOf(card))?.[1];
      if (!sessionId) throw new Error('no session id on the card');
      return { sessionId, cardTs: card.ts };
    },
    secrets: () => [API_KEY, STATE_SECRET, ENCRYPTION_KEY, oauth.clientSecret, sandbox.signingSecret],
    async stop() {
      for (const bot of bots) await bot.stop();
      for (const store of stores) await store.close();
      await shared?.close();
      await sandbox.close();
      await emulator.close();
    },
  };
  return world;
}

/** Waits for a thread message of a workspace's card that satisfies `predicate`. */
export function waitInThread(
  sandbox: RunningSandbox,
  place: Place,
  cardTs: string,
  predicate: (m: SandboxMessage) => boolean,
  what: string,
): Promise<SandboxMessage> {
  const ws = sandbox.workspaceFor(place.team);
  return ws.waitFor(() => ws.replies(place.channel, cardTs).find(predicate), { what, timeoutMs: WAIT_MS });
}

export function waitForCard(
  sandbox: RunningSandbox,
  place: Place,
  cardTs: string,
  pattern: RegExp,
  what: string,
): Promise<SandboxMessage> {
  const ws = sandbox.workspaceFor(place.team);
  return ws.waitFor(
    () => {
      const card = ws.findMessage(place.channel, cardTs);
      return card && pattern.test(textOf(card)) ? card : undefined;
    },
    { what, timeoutMs: WAIT_MS },
  );
}

/** Runs `send` and waits for the session card it brings in the channel: new since just before `send`. */
async function newCardIn(
  ws: RunningSandbox['workspace'],
  channel: string,
  send: () => Promise<unknown>,
): Promise<SandboxMessage> {
  const before = new Set((ws.messages.get(channel) ?? []).map((m) => m.ts));
  await send();
  return ws.waitFor(
    () =>
      (ws.messages.get(channel) ?? []).find(
        (m) => !before.has(m.ts) && !m.thread_ts && /session `/.test(textOf(m)),
      ),
    { what: `the session card in ${channel}`, timeoutMs: WAIT_MS },
  );
}
