/**
 * One side of the Slack benchmark: a strategy's bot with a sandbox (a workspace) of its own, the
 * sessions a person started there, and what the sandbox saw: each thread reply as it appeared, and every
 * Web API call the bot made.
 */
import { join } from 'node:path';
import {
  defaultSeed,
  type RunningSandbox,
  type SandboxMessage,
  startSandbox,
} from '@agent-sessions/slack-sandbox';
import { type Bot, botEnv, spawnBot } from '../bot.js';
import { type Latency, latencyProxy } from '../latency.js';
import { visibleText } from './match.js';

/**
 * `paced` and `naive`: the classic surface (card and thread); `agent`: the paced bot streaming;
 * `baseline`: the paced bot of another build (`--baseline`), for before and after in one run.
 */
export type Strategy = 'paced' | 'naive' | 'agent' | 'baseline';
export const KEY = 'bench_slack_key';
export const CHANNEL = 'C0BUSY';
const USER = 'U0ALICE';

export interface Tracked {
  goal: string;
  kind: 'chatty' | 'question';
  /** When the person typed `/agent start` (wall clock). */
  sentAt: number;
  sessionId?: string;
}

export interface Appearance {
  at: number;
  ts: string;
  text: string;
}

export interface Side {
  strategy: Strategy;
  sandbox: RunningSandbox;
  /** Closes what stands between the bot and its sandbox (a latency proxy), if anything. */
  closeProxy(): Promise<void>;
  bot: Bot;
  dataDir: string;
  tracked: Tracked[];
  /** Each thread reply as it was posted or edited, with when (by thread ts). */
  appearances: Map<string, Appearance[]>;
  calls: {
    total: number;
    ratelimited: number;
    byMethod: Map<string, { total: number; ratelimited: number }>;
  };
}

export const textOf = (m: SandboxMessage) => visibleText(m);
export const isTopLevel = (m: SandboxMessage) => !m.thread_ts || m.thread_ts === m.ts;

export async function startSide(
  strategy: Strategy,
  root: string,
  emulatorUrl: string,
  label: string,
  baselineMain?: string,
  latency: Latency = { min: 0, max: 0 },
): Promise<Side> {
  const seed = defaultSeed();
  seed.channels.push({ id: CHANNEL, name: 'busy', is_private: false, is_im: false, is_member: true });
  // Everyone is in it: a person starts sessions only where they are a member.
  seed.channelMembers = { ...seed.channelMembers, [CHANNEL]: seed.users.map((u) => u.id) };
  // `{}`: Slack's own figures whatever SANDBOX_RATE_* says; at Slack's limits is the point.
  const sandbox = await startSandbox({ seed, rateLimits: {}, triggerTtlMs: 30_000 });
  const appearances = new Map<string, Appearance[]>();
  const calls: Side['calls'] = { total: 0, ratelimited: 0, byMethod: new Map() };
  sandbox.workspace.on('change', (change) => {
    if (change.kind === 'message' || change.kind === 'message_changed') {
      const m = change.message;
      if (m.channel !== CHANNEL || isTopLevel(m)) return;
      const list = appearances.get(m.thread_ts as string) ?? [];
      list.push({ at: Date.now(), ts: m.ts, text: textOf(m) });
      appearances.set(m.thread_ts as string, list);
    } else if (change.kind === 'api_call' && !change.call.event) {
      const ratelimited = change.call.status === 429 ? 1 : 0;
      calls.total += 1;
      calls.ratelimited += ratelimited;
      const m = calls.byMethod.get(change.call.method) ?? { total: 0, ratelimited: 0 };
      m.total += 1;
      m.ratelimited += ratelimited;
      calls.byMethod.set(change.call.method, m);
    }
  });
  const dataDir = join(root, `${label}-${strategy}`);
  let bot: Bot;
  const proxy = latency.max > 0 ? await latencyProxy(sandbox.apiUrl, latency) : undefined;
  try {
    bot = await spawnBot(
      {
        ...botEnv(sandbox, emulatorUrl, KEY),
        ...(proxy ? { SLACK_API_URL: proxy.url } : {}),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ...(strategy === 'naive' ? { AGENT_SLACK_PACING: 'off' } : {}),
        AGENT_SLACK_SURFACE: strategy === 'agent' ? 'agent' : 'classic',
      },
      undefined,
      strategy === 'baseline' ? baselineMain : undefined,
    );
  } catch (error) {
    await proxy?.close();
    await sandbox.close();
    throw error;
  }
  const closeProxy = async () => proxy?.close();
  return { strategy, sandbox, closeProxy, bot, dataDir, tracked: [], appearances, calls };
}

export async function startSession(
  side: Side,
  tracked: Omit<Tracked, 'sentAt'>,
  scenario: string,
): Promise<void> {
  side.tracked.push(Object.assign(tracked, { sentAt: Date.now() }));
  const response = await side.sandbox
    .driver(side.bot.eventsUrl)
    .command({ user: USER, channel: CHANNEL, text: `start scenario:${scenario} ${tracked.goal}` });
  if (response.status !== 200) throw new Error(`/agent start answered ${response.status} (${side.strategy})`);
}
