/**
 * Agent hosts over MCP: the endpoint behind /mcp (built once people's services exist, before the Bolt app
 * that serves its routes), and App Home's tokens. Absent with MCP_ENABLED=false.
 */
import type { EventEmitter } from 'node:events';
import { type AgentSessionsClient, type Follower, isTerminalStatus } from '@agent-sessions/core';
import type { KeyParts } from '../services/keys/index.js';
import {
  ActivePeople,
  loadSessionServer,
  McpConnections,
  McpEndpoint,
  McpTokens,
  type McpToolDeps,
  type MessageView,
  RequestBudget,
  SessionSlots,
  SessionWaiter,
  SignInGuard,
  SlackIdentityAuth,
  type SlackPerson,
  slackUser,
  WaitSlots,
} from '../services/mcp/index.js';
import type { SessionVisibility } from '../services/people/visibility.js';
import type { BotIdentity, SlackClient } from '../services/slack-out/outbound/index.js';
import type { Store } from '../store/index.js';
import { type Workspace, type WorkspaceIds, workspaceOf } from '../workspace.js';
import type { Installs } from './installs.js';
import type { People, Settings } from './types.js';

/** The bot's version, as hosts are told it. */
const VERSION = '0.1.0';

/** A session another replica follows: its state read again this often while a host waits on it. */
const RECHECK_MS = 2_000;

/** The largest MCP request body: a tool call is a few hundred bytes; a long goal and context fit well. */
export const MCP_BODY_LIMIT_BYTES = 64 * 1024;

/** Messages read at most to find a session's latest (pages of 100): the bound of one get_session. */
const MESSAGES_READ_AT_MOST = 1_000;

const tokensOf = (
  { config }: Pick<Settings, 'config'>,
  parts: { store: Pick<Store, 'mcpTokens'>; installs: Installs | undefined },
  tokenDays: number,
) =>
  new McpTokens({
    tokens: parts.store.mcpTokens,
    settings: {
      ttlDays: tokenDays,
      isolated: parts.installs !== undefined || config.slack.oauth !== undefined,
    },
  });

/** App Home's "Agent hosts (MCP)": built with people's services, since their Home tabs show it. */
export function mcpConnections(
  settings: Pick<Settings, 'config' | 'secrets' | 'logger'>,
  parts: {
    store: Pick<Store, 'mcpTokens'>;
    installs: Installs | undefined;
    /** Told when a person's tokens change: their Home tab shows them. */
    homeChanges: EventEmitter;
    /** Who manages the workspace's key: they also see and revoke anyone's tokens. */
    isAdmin: (userId: string) => Promise<boolean>;
  },
): McpConnections | undefined {
  const mcp = settings.config.mcp;
  if (!mcp) return undefined;
  return new McpConnections({
    tokens: tokensOf(settings, parts, mcp.tokenDays),
    url: mcp.publicUrl ? `${mcp.publicUrl}/mcp` : undefined,
    secrets: settings.secrets,
    isAdmin: parts.isAdmin,
    changed: () => parts.homeChanges.emit('changed'),
    logger: settings.logger.child({ component: 'mcp' }),
  });
}

/** What the MCP endpoint is built from: its tools act through people's services, as a click does. */
export interface McpDeps {
  store: Store;
  /** OAuth installs (undefined with one bot token): a token's workspace served only while admitted. */
  installs: Installs | undefined;
  follower: Follower;
  keys: Pick<KeyParts, 'calls' | 'service'>;
  visibility: SessionVisibility;
  slack: SlackClient;
  self: () => Promise<BotIdentity>;
  people: Pick<People, 'starting' | 'answering' | 'steering' | 'directory'>;
}

/** The endpoint behind /mcp, built before the Bolt app that serves its routes; absent with MCP_ENABLED=false. */
export function mcpEndpoint(settings: Settings, deps: McpDeps): McpEndpoint | undefined {
  const mcp = settings.config.mcp;
  if (!mcp) return undefined;
  const { store, installs, slack } = deps;
  const tools = toolDeps(settings, mcp, deps);
  const tokens = tokensOf(settings, deps, mcp.tokenDays);
  return new McpEndpoint({
    tokens,
    ...(installs
      ? {
          served: async (workspace: Workspace) =>
            installs.admission.check(workspace, 'MCP requests') &&
            (await store.installations.find(workspace.key)) !== undefined,
        }
      : {}),
    activePeople: new ActivePeople({
      usersInfo: (user) => slackUser(() => slack.users.info({ user })),
      revokePerson: (caller) => tokens.revokePerson(caller.workspace, caller.userId),
      logger: tools.logger,
    }),
    ...slackbotOf(settings, deps),
    budget: new RequestBudget({ perMinute: mcp.requestsPerMinute }),
    signIns: new SignInGuard({ perMinute: mcp.failedAuthPerMinute }),
    waits: new WaitSlots(mcp.waitLimits),
    serverFor: async (caller) => (await loadSessionServer())(caller, tools, VERSION),
    settings: {
      allowedOrigins: mcp.allowedOrigins,
      maxBodyBytes: MCP_BODY_LIMIT_BYTES,
      ...(mcp.publicUrl ? { publicUrl: mcp.publicUrl } : {}),
      trustedProxies: mcp.trustedProxies,
      version: VERSION,
    },
    logger: settings.logger.child({ component: 'mcp' }),
  });
}

/** What the six tools act through: people's services, the store's records, the service under each session's key. */
function toolDeps(
  { logger }: Pick<Settings, 'logger'>,
  mcp: NonNullable<Settings['config']['mcp']>,
  { store, follower, keys, visibility, people }: McpDeps,
): McpToolDeps {
  // The session's slot as the tool read it with the session (a slot is set when a session starts and never
  // changes): no second read of the store per service call. Unknown, it is looked up as any call's. Known
  // and its client at hand, the request is handed to the HTTP client at once, not a few turns later.
  const clientOf = (sessionId: string, keyRef: string | null | undefined) =>
    keyRef === undefined
      ? keys.service.clientForSession(sessionId)
      : (keys.service.clientOfSessionNow(keyRef) ?? keys.service.clientOfSession(keyRef, sessionId));
  return {
    starting: people.starting,
    answering: people.answering,
    steering: people.steering,
    directory: people.directory,
    sessions: store.sessions,
    prompts: store.prompts,
    visibility,
    live: {
      status: (sessionId, keyRef) => use(clientOf(sessionId, keyRef), (c) => c.sessions.get(sessionId)),
      latestMessages: (sessionId, keyRef, count) =>
        use(clientOf(sessionId, keyRef), (c) => latestMessages(c.sessions, sessionId, count)),
    },
    slots: new SessionSlots(),
    waiter: sessionWaiter(store, follower),
    waitCapSeconds: mcp.waitCapSeconds,
    logger: logger.child({ component: 'mcp' }),
  };
}

/** wait_for_session: woken by the follower's events, or reading the store again while another replica follows. */
function sessionWaiter(store: Pick<Store, 'sessions' | 'prompts'>, follower: Follower): SessionWaiter {
  return new SessionWaiter({
    events: follower,
    isFollowing: (sessionId) => follower.isFollowing(sessionId),
    state: async (sessionId) => {
      const found = await store.prompts.sessionWithPending(sessionId);
      return {
        ended: !found || found.session.finished || isTerminalStatus(found.session.status),
        asking: found?.pending.some((p) => p.state === 'pending') ?? false,
      };
    },
    recheckMs: RECHECK_MS,
  });
}

/**
 * Slack identity auth, when MCP_SLACK_IDENTITY asks for it: Slackbot's requests signed with the app's
 * signing secret, each acting as the person it names, in that person's workspace once it is served (with
 * OAuth installs: installed, and admitted by SLACK_ALLOWED_TEAMS; with one bot token: the token's own).
 */
function slackbotOf(
  { config }: Pick<Settings, 'config'>,
  { store, installs, self }: Pick<McpDeps, 'store' | 'installs' | 'self'>,
) {
  const signingSecret = config.slack?.signingSecret;
  if (!config.mcp?.slackIdentity || !signingSecret) return {};
  const installed = async (ids: WorkspaceIds): Promise<Workspace | undefined> => {
    const workspace = workspaceOf(ids, true);
    if (!workspace || !installs?.admission.check(ids, 'MCP requests')) return undefined;
    return (await store.installations.find(workspace.key)) ? workspace : undefined;
  };
  const workspaceFor = async (person: SlackPerson): Promise<Workspace | undefined> => {
    const ids = { teamId: person.teamId, enterpriseId: person.enterpriseId };
    if (installs)
      return (
        (await installed(ids)) ??
        (person.enterpriseId ? await installed({ ...ids, isEnterpriseInstall: true }) : undefined)
      );
    const me = await self();
    return me.teamId === person.teamId ? workspaceOf(ids, false) : undefined;
  };
  return { slackbot: { auth: new SlackIdentityAuth({ signingSecret }), workspaceOf: workspaceFor } };
}

/** The last `count` messages, read oldest first page by page up to a bound. */
async function latestMessages(
  client: Pick<AgentSessionsClient['sessions'], 'listMessages'>,
  sessionId: string,
  count: number,
): Promise<MessageView[]> {
  const kept: MessageView[] = [];
  let read = 0;
  for await (const { roundId, message: m } of client.listMessages(sessionId)) {
    kept.push({ round_id: roundId, role: m.role ?? null, content: m.content, timestamp: m.timestamp });
    if (kept.length > count) kept.shift();
    if (++read >= MESSAGES_READ_AT_MOST) break;
  }
  return kept;
}

/**
 * A personal MCP token made without App Home, for a development start (`npm start` can print one for the
 * sandbox's Alice): the same token as the Home tab makes, shown once to the caller.
 */
export async function mintMcpToken(
  store: Pick<Store, 'mcpTokens'>,
  who: { teamId: string; userId: string; enterpriseId?: string; days?: number; isolated?: boolean },
): Promise<{ token: string; expiresAt: string }> {
  const workspace = workspaceOf(
    { teamId: who.teamId, enterpriseId: who.enterpriseId },
    who.isolated ?? false,
  );
  if (!workspace) throw new Error('a token needs a workspace: give its team id');
  const tokens = new McpTokens({
    tokens: store.mcpTokens,
    settings: { ttlDays: who.days ?? 90, isolated: who.isolated ?? false },
  });
  const { token, info } = await tokens.mint(workspace, who.userId);
  return { token, expiresAt: info.expiresAt };
}

/** `call` on the client: at once when it is at hand, else once it is looked up. */
function use<T>(
  client: AgentSessionsClient | Promise<AgentSessionsClient>,
  call: (client: AgentSessionsClient) => Promise<T>,
): Promise<T> {
  return client instanceof Promise ? client.then(call) : call(client);
}
