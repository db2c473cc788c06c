/**
 * The shapes the builders share: the settings every builder reads, and the parts built as one (Slack-out,
 * the agent surfaces, what people do). Each builder names its own dependencies beside it. Of this folder it
 * imports only installs.ts's shapes (which imports nothing back), so the builders all point here without
 * a circle.
 */
import type { SchedulePolicy } from '@agent-sessions/core';
import type { BotConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { SecretScrubber } from '../secret-scrubber.js';
import type { ChannelSteering } from '../services/code-channels/channel-steering.js';
import type { LeaseKeeperOptions } from '../services/following/lease-keeper.js';
import type { KeyLinking } from '../services/keys/index.js';
import type { McpConnections } from '../services/mcp/index.js';
import type { AnsweringService } from '../services/people/answering.js';
import type { ChannelSettingsService } from '../services/people/channel-settings.js';
import type { ConversationService } from '../services/people/conversation.js';
import type { SessionDirectory } from '../services/people/directory.js';
import type { FeedbackService } from '../services/people/feedback.js';
import type { HomeRefresher } from '../services/people/home-refresh.js';
import type { HomeViews } from '../services/people/home-views.js';
import type { MessagesTab } from '../services/people/messages-tab.js';
import type { StartInput, StartingService } from '../services/people/starting.js';
import type { SteeringService } from '../services/people/steering.js';
import type { StopService } from '../services/people/stopping.js';
import type { AgentSessions, WorkspaceSurfaces } from '../services/slack-out/agent-surface/index.js';
import type {
  OutboundOptions,
  OutboundQueue,
  SlackChat,
  SlackClient,
} from '../services/slack-out/outbound/index.js';
import type {
  CardUpdater,
  CardUpdaterOptions,
  Notifier,
  PostOwner,
  ThreadPoster,
  ThreadPosterOptions,
} from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import type { InstallsTuning } from './installs.js';

/** What a running bot needs that the environment doesn't say: required Slack and service settings. */
export type RunnableConfig = BotConfig & {
  slack: NonNullable<BotConfig['slack']>;
  service: NonNullable<BotConfig['service']>;
};

/** Knobs for tests and operators; production uses the defaults. */
export interface BotTuning {
  replicaId?: string;
  leases?: Omit<LeaseKeeperOptions, 'owner'>;
  cards?: CardUpdaterOptions;
  posts?: ThreadPosterOptions;
  outbound?: Omit<OutboundOptions, 'pacing'>;
  schedule?: Partial<SchedulePolicy>;
  /** Where log lines go (default stdout). */
  logDestination?: NodeJS.WritableStream;
  logLevel?: string;
  /** A store already open (tests share one); otherwise opened from the config. */
  store?: Store;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  schema?: string;
  /** Reminders: the clock and how often to look (tests). */
  reminders?: { now?: () => Date; tickMs?: number };
  /** How long user-group and channel member lists read from Slack are kept (default a minute). */
  policy?: { membersTtlMs?: number };
  /** OAuth installs: token refresh timing. */
  installs?: InstallsTuning;
}

/** The settings every step may read. */
export interface Settings {
  config: RunnableConfig;
  tuning: BotTuning;
  logger: Logger;
  /** What the logger and the traces scrub: the settings' secrets, and each key or token once decrypted. */
  secrets: SecretScrubber;
}

/** How the bot's own calls reach Slack: the paced queue, the thread poster and the card updater. */
export interface SlackOut {
  outbound: OutboundQueue;
  /** The client of calls that go through the outbound queue (a 429 answered at once when paced). */
  paced: SlackClient;
  /** Posts and edits made on a person's behalf, first in their channel's queue. */
  chat: SlackChat<'postMessage' | 'update' | 'delete'>;
  /** Who sends a session's posts here: shared by the posters and the publisher. */
  owner: PostOwner;
  poster: ThreadPoster;
  cards: CardUpdater;
}

/** Slack's agent surfaces: the surface choice, sessions as Slack's agent sessions, the Messages tab. */
export interface AgentParts {
  surface: WorkspaceSurfaces;
  sessions: AgentSessions;
  messagesTab: MessagesTab;
}

/** What people do: answer, steer, start, talk to the bot, give feedback, look sessions up. */
export interface People {
  notifier: Notifier;
  answering: AnsweringService;
  steering: SteeringService;
  starting: StartingService;
  conversation: ConversationService;
  feedback: FeedbackService;
  directory: SessionDirectory;
  channelSettings: ChannelSettingsService;
  stopping: StopService;
  /** The start input with its channel's defaults. */
  withDefaults: (input: StartInput) => Promise<StartInput>;
  keyLinking: KeyLinking;
  /** A session steered from its own channel (its commands, its context bar). */
  channelSteering: ChannelSteering;
  /** Home tabs people opened, kept true as sessions change. */
  homes: HomeRefresher;
  /** Every Home tab published, with Slack's hash. */
  homeViews: HomeViews;
  /** Agent hosts (MCP) in App Home; absent with MCP_ENABLED=false. */
  mcp?: McpConnections;
}
