import type { EventEmitter } from 'node:events';
/**
 * The shapes the builders share: the settings every builder reads and the parts built so far. Of this
 * folder it imports only installs.ts's shapes (which imports nothing back), so the builders all point
 * here without a circle.
 */
import type { AgentSessionsClient, Follower, SchedulePolicy } from '@agent-sessions/core';
import type { BotConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { ChannelSteering } from '../services/code-channels/channel-steering.js';
import type { CodeChannels } from '../services/code-channels/code-channels.js';
import type { LeaseKeeper, LeaseKeeperOptions } from '../services/following/lease-keeper.js';
import type { SessionPublisher } from '../services/following/session-publisher.js';
import type { SessionWorkspaces } from '../services/installs/scope.js';
import type { KeyLinking, KeyParts } from '../services/keys/index.js';
import type { AuditService } from '../services/ops/audit.js';
import type { BotMetrics } from '../services/ops/metrics.js';
import type { AnsweringService } from '../services/people/answering.js';
import type { ChannelSettingsService } from '../services/people/channel-settings.js';
import type { ConversationService } from '../services/people/conversation.js';
import type { SessionDirectory } from '../services/people/directory.js';
import type { FeedbackService } from '../services/people/feedback.js';
import type { HomeRefresher } from '../services/people/home-refresh.js';
import type { MessagesTab } from '../services/people/messages-tab.js';
import type { ActPolicy } from '../services/people/policy.js';
import type { StartInput, StartingService } from '../services/people/starting.js';
import type { SteeringService } from '../services/people/steering.js';
import type { StopService } from '../services/people/stopping.js';
import type { SessionVisibility } from '../services/people/visibility.js';
import type { AgentSessions, WorkspaceSurfaces } from '../services/slack-out/agent-surface/index.js';
import type {
  BotIdentity,
  OutboundOptions,
  OutboundQueue,
  SlackChat,
  SlackClient,
} from '../services/slack-out/outbound/index.js';
import type {
  CardUpdater,
  CardUpdaterOptions,
  Notifier,
  ThreadPoster,
  ThreadPosterOptions,
} from '../services/slack-out/thread/index.js';
import type { Store } from '../store/index.js';
import type { Installs, InstallsTuning } from './installs.js';

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
}

/** The parts built so far: each builder takes those it needs. */
export interface Parts {
  store: Store;
  client: AgentSessionsClient;
  follower: Follower;
  metrics: BotMetrics;
  audit: AuditService;
  /** Bolt's client: reads, and calls that needn't wait in the outbound queue. */
  slack: SlackClient;
  /** Who the bot is, from one auth.test asked once for all (poster, Slack Connect check, audit). */
  self: () => Promise<BotIdentity>;
  out: SlackOut;
  policy: ActPolicy;
  visibility: SessionVisibility;
  publisher: SessionPublisher;
  leases: LeaseKeeper;
  people: People;
  replicaId: string;
  /** Service keys per workspace or person: each session's calls go with its key. */
  keys: KeyParts;
  /** Who the bot is (it "answers" a question rejected on timeout), known once Slack said. */
  botUserId: () => string;
  /** Slack's agent surfaces (built in agent-surface.ts). */
  agent: AgentParts;
  /** OAuth installs (undefined with one bot token), and which workspace a session's work is of. */
  installs: Installs | undefined;
  scopes: SessionWorkspaces;
  /** Sessions in channels of their own (Slack's code channels). */
  codeChannels: CodeChannels;
  /** Says 'changed' whenever a session's state, question or end may change what a Home tab shows. */
  homeChanges: EventEmitter;
}

/** How the bot's own calls reach Slack: the paced queue, the thread poster and the card updater. */
export interface SlackOut {
  outbound: OutboundQueue;
  /** The client of calls that go through the outbound queue (a 429 answered at once when paced). */
  paced: SlackClient;
  /** Posts and edits made on a person's behalf, first in their channel's queue. */
  chat: SlackChat<'postMessage' | 'update' | 'delete'>;
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
}
