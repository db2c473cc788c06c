import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { CodeChannelState } from './agent/code-channels.js';
import { AgentState } from './agent/state.js';
import { WorkflowRuns } from './workflows/state.js';
import type {
  ApiCall,
  SandboxChannel,
  SandboxEphemeral,
  SandboxFile,
  SandboxMessage,
  SandboxUser,
  SandboxView,
  WorkspaceChange,
} from './workspace/records.js';
import { defaultSeed, type WorkspaceSeed } from './workspace/seed.js';
import { waitForChange } from './workspace/wait.js';

export * from './workspace/grid-seed.js';
export * from './workspace/records.js';
export * from './workspace/second-seed.js';
export * from './workspace/seed.js';

/**
 * The in-memory Slack workspace: people, channels, messages, ephemerals, views and files. Its records'
 * shapes are in ./workspace/records.ts, what it starts with in ./workspace/seed.ts. It is the one record
 * every Web API method reads and writes (a Slack Connect channel's shared history included), so its
 * invariants (timestamps, members, threads) are kept in one place.
 */

const MAX_API_CALLS = 300;

export class Workspace extends EventEmitter<{ change: [WorkspaceChange] }> {
  readonly seed: WorkspaceSeed;
  readonly users = new Map<string, SandboxUser>();
  readonly channels = new Map<string, SandboxChannel>();
  readonly messages = new Map<string, SandboxMessage[]>();
  readonly ephemerals: SandboxEphemeral[] = [];
  readonly views = new Map<string, SandboxView>();
  readonly homeViews = new Map<string, string>();
  readonly files = new Map<string, SandboxFile>();
  /** The latest Web API calls, oldest first (a bounded log). */
  readonly apiCalls: ApiCall[] = [];
  /** Slack's agent platform: sessions, streams, suggested prompts, Stop clicks (see agent/state.ts). */
  readonly agent: AgentState = new AgentState(this);
  /** Code channels: a channel per agent session (see agent/code-channels.ts). */
  readonly codeChannels: CodeChannelState = new CodeChannelState(this);
  /** Workflow Builder: the app's custom steps, their executions and completions (workflows/state.ts). */
  readonly workflows: WorkflowRuns = new WorkflowRuns(this);
  /** Who is in each conversation, the bot included where it is a member. */
  readonly #members = new Map<string, Set<string>>();
  /** The last ts given; shared with a workspace it shares a Slack Connect channel with (one history). */
  #clock = { lastTs: 0 };
  #callSeq = 0;

  /** `waitTimeoutMs`: how long `waitFor` waits when the caller names no limit. */
  constructor(
    seed: WorkspaceSeed = defaultSeed(),
    readonly options: { waitTimeoutMs?: number } = {},
  ) {
    super();
    this.setMaxListeners(0);
    this.seed = seed;
    for (const u of seed.users) this.users.set(u.id, u);
    for (const c of seed.channels) {
      this.channels.set(c.id, c);
      this.messages.set(c.id, []);
      const people = seed.channelMembers?.[c.id] ?? [];
      this.#members.set(c.id, new Set(c.is_member ? [...people, seed.botUserId] : people));
    }
  }

  /** Slack timestamps: seconds with six decimals, strictly increasing. */
  nextTs(): string {
    const now = Date.now() * 1000;
    this.#clock.lastTs = Math.max(now, this.#clock.lastTs + 1);
    const s = String(this.#clock.lastTs);
    return `${s.slice(0, -6)}.${s.slice(-6)}`;
  }

  /**
   * A Slack Connect channel this workspace and `other` both list under one id: one channel, so one
   * history (what either side posts, the other reads) and one clock for its timestamps.
   */
  shareChannel(other: Workspace, channelId: string): void {
    const history = other.messages.get(channelId);
    if (!history || !this.channels.has(channelId)) throw new Error(`sandbox: ${channelId} is not in both`);
    this.messages.set(channelId, history);
    other.#clock.lastTs = Math.max(other.#clock.lastTs, this.#clock.lastTs);
    this.#clock = other.#clock;
  }

  /** A channel by id; a user id opens (or reuses) the direct message with them. */
  channel(id: string): SandboxChannel | undefined {
    const found = this.channels.get(id);
    if (found) return found;
    if (this.users.has(id)) {
      const dm: SandboxChannel = {
        id: `D${id.slice(1)}`,
        name: id,
        is_private: true,
        is_im: true,
        is_member: true,
      };
      if (!this.channels.has(dm.id)) {
        this.channels.set(dm.id, dm);
        this.messages.set(dm.id, []);
        this.#members.set(dm.id, new Set([id, this.seed.botUserId]));
      }
      return dm;
    }
    return undefined;
  }

  /** A channel as the bot's token sees it: a private channel it is not in does not exist for it. */
  channelForBot(id: string): SandboxChannel | undefined {
    const channel = this.channel(id);
    return channel && (!channel.is_private || channel.is_member) ? channel : undefined;
  }

  /** A channel made while the workspace runs (a code channel), with its first members and the bot. */
  addChannel(channel: SandboxChannel, people: string[]): void {
    this.channels.set(channel.id, channel);
    this.messages.set(channel.id, []);
    this.#members.set(channel.id, new Set(channel.is_member ? [...people, this.seed.botUserId] : people));
    this.emit('change', { kind: 'agent' });
  }

  /** `/invite @bot`: the bot joins, and the channel says so as Slack does. */
  inviteBot(channelId: string, by: string): void {
    this.join(channelId, this.seed.botUserId, by);
  }

  /**
   * Who is in a conversation (the bot too, where it is), ordered by id as conversations.members pages
   * them; undefined for no such channel.
   */
  members(channelId: string): string[] | undefined {
    const members = this.#members.get(channelId);
    return members && [...members].sort();
  }

  /**
   * An admin deactivates someone, as Slack does it: the account stays (users.info answers `deleted:
   * true`), and they stay listed by conversations.members in the channels they were in. Undefined for
   * no such person; the person, changed, otherwise.
   */
  deactivate(userId: string): SandboxUser | undefined {
    const user = this.users.get(userId);
    if (!user || user.is_bot) return undefined;
    user.deleted = true;
    return user;
  }

  /**
   * Someone joins a channel (or is invited by `inviter`), and the channel says so as Slack does. False
   * when nothing changed: no such channel or person, a DM, or already in it.
   */
  join(channelId: string, userId: string, inviter?: string): boolean {
    const channel = this.channels.get(channelId);
    const members = this.#members.get(channelId);
    const known = this.users.has(userId) || userId === this.seed.botUserId;
    if (!channel || !members || channel.is_im || !known || members.has(userId)) return false;
    members.add(userId);
    if (userId === this.seed.botUserId) channel.is_member = true;
    this.emit('change', { kind: 'membership', channel: channelId, user: userId, joined: true });
    this.post({
      channel: channelId,
      user: userId,
      subtype: 'channel_join',
      ...(inviter ? { inviter } : {}),
      text: `<@${userId}> has joined the channel`,
    });
    return true;
  }

  /** Someone leaves a channel, which says so. False when they were not in it (or it is a DM). */
  leave(channelId: string, userId: string): boolean {
    const channel = this.channels.get(channelId);
    const members = this.#members.get(channelId);
    if (!channel || !members || channel.is_im || !members.delete(userId)) return false;
    if (userId === this.seed.botUserId) channel.is_member = false;
    this.emit('change', { kind: 'membership', channel: channelId, user: userId, joined: false });
    this.post({
      channel: channelId,
      user: userId,
      subtype: 'channel_leave',
      text: `<@${userId}> has left the channel`,
    });
    return true;
  }

  findMessage(channel: string, ts: string): SandboxMessage | undefined {
    return this.messages.get(channel)?.find((m) => m.ts === ts);
  }

  post(message: Omit<SandboxMessage, 'ts' | 'type'>): SandboxMessage {
    const full: SandboxMessage = { type: 'message', ts: this.nextTs(), ...message };
    this.messages.get(message.channel)?.push(full);
    if (full.thread_ts) {
      const parent = this.findMessage(message.channel, full.thread_ts);
      if (parent) parent.reply_count = (parent.reply_count ?? 0) + 1;
    }
    this.emit('change', { kind: 'message', message: full });
    return full;
  }

  update(message: SandboxMessage, changes: Partial<SandboxMessage>): SandboxMessage {
    Object.assign(message, changes, {
      edited: { user: message.user ?? message.bot_id ?? '', ts: this.nextTs() },
    });
    this.emit('change', { kind: 'message_changed', message });
    return message;
  }

  /** Adds `user`'s reaction; false when they had already reacted so. */
  react(message: SandboxMessage, name: string, user: string): boolean {
    message.reactions ??= [];
    const reactions = message.reactions;
    let reaction = reactions.find((r) => r.name === name);
    if (reaction?.users.includes(user)) return false;
    if (!reaction) {
      reaction = { name, users: [], count: 0 };
      reactions.push(reaction);
    }
    reaction.users.push(user);
    reaction.count = reaction.users.length;
    this.emit('change', {
      kind: 'reaction',
      channel: message.channel,
      ts: message.ts,
      name,
      user,
      added: true,
    });
    return true;
  }

  /** Removes `user`'s reaction; false when there was none. */
  unreact(message: SandboxMessage, name: string, user: string): boolean {
    const reaction = message.reactions?.find((r) => r.name === name);
    if (!reaction?.users.includes(user)) return false;
    reaction.users = reaction.users.filter((u) => u !== user);
    reaction.count = reaction.users.length;
    if (reaction.count === 0) message.reactions = message.reactions?.filter((r) => r !== reaction);
    this.emit('change', {
      kind: 'reaction',
      channel: message.channel,
      ts: message.ts,
      name,
      user,
      added: false,
    });
    return true;
  }

  remove(channel: string, ts: string): boolean {
    const list = this.messages.get(channel);
    const index = list?.findIndex((m) => m.ts === ts) ?? -1;
    if (!list || index < 0) return false;
    list.splice(index, 1);
    this.emit('change', { kind: 'message_deleted', channel, ts });
    return true;
  }

  postEphemeral(ephemeral: Omit<SandboxEphemeral, 'ts'>): SandboxEphemeral {
    const full = { ...ephemeral, ts: this.nextTs() };
    this.ephemerals.push(full);
    this.emit('change', { kind: 'ephemeral', ephemeral: full });
    return full;
  }

  saveView(view: SandboxView): SandboxView {
    this.views.set(view.id, view);
    this.emit('change', { kind: 'view', view });
    return view;
  }

  addFile(file: SandboxFile): void {
    this.files.set(file.id, file);
    this.emit('change', { kind: 'file', file });
  }

  recordCall(call: Omit<ApiCall, 'seq' | 'at'>): ApiCall {
    const full: ApiCall = { seq: ++this.#callSeq, at: new Date().toISOString(), ...call };
    this.apiCalls.push(full);
    if (this.apiCalls.length > MAX_API_CALLS) this.apiCalls.splice(0, this.apiCalls.length - MAX_API_CALLS);
    this.emit('change', { kind: 'api_call', call: full });
    return full;
  }

  /** Thread replies of a message, oldest first (without the parent). */
  replies(channel: string, threadTs: string): SandboxMessage[] {
    return (this.messages.get(channel) ?? []).filter((m) => m.thread_ts === threadTs && m.ts !== threadTs);
  }

  /** Resolves when `predicate` holds, re-checked on every change; rejects after `timeoutMs`. */
  waitFor<T>(
    predicate: () => T | undefined | false,
    { timeoutMs = this.options.waitTimeoutMs ?? 10_000, what = 'condition' } = {},
  ): Promise<T> {
    return waitForChange(this, predicate, { timeoutMs, what });
  }

  /** A snapshot for inspection (tests, and later the web page). */
  snapshot(): Record<string, unknown> {
    return {
      team: { id: this.seed.teamId, domain: this.seed.teamDomain },
      users: [...this.users.values()],
      channels: [...this.channels.values()].map((c) => ({
        ...c,
        members: this.members(c.id) ?? [],
        messages: this.messages.get(c.id) ?? [],
      })),
      ephemerals: this.ephemerals,
      apiCalls: this.apiCalls.slice(-100),
      views: [...this.views.values()],
      files: [...this.files.values()].map(({ content, ...rest }) => ({
        ...rest,
        preview: content.slice(0, 200),
      })),
      agent: this.agent.snapshot(),
      codeChannels: this.codeChannels.snapshot(),
      workflows: this.workflows.snapshot(),
    };
  }
}

export const randomId = (prefix: string, length = 10): string =>
  `${prefix}${randomBytes(length).toString('hex').toUpperCase().slice(0, length)}`;
