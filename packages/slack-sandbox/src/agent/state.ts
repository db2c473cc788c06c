/**
 * The workspace's agent platform: sessions, streams, suggested prompts, agent-view thread titles and Stop
 * clicks, with the switch saying whether the app has the feature at all. The Web API methods
 * (api/agents.ts, api/streams.ts) change it; tests and the page read it. Every change is announced on the
 * workspace (`kind: 'agent'`), so the page refreshes and `waitFor` re-checks.
 */

import type { SandboxMessage, Workspace } from '../workspace.js';
import {
  AGENT_METHODS,
  type AgentFeatureMode,
  type AgentSessionRecord,
  type AssistantThreadRecord,
  type SessionStatus,
  type StatusChange,
  type StopClick,
  type StreamRecord,
  type SuggestedPromptsRecord,
} from './records.js';
import { streamBlocks, streamText } from './stream-blocks.js';

const key = (channel: string, ts: string) => `${channel}|${ts}`;

export class AgentState {
  readonly #workspace: Workspace;
  readonly #sessions = new Map<string, AgentSessionRecord>();
  readonly #streams = new Map<string, StreamRecord>();
  readonly #prompts = new Map<string, SuggestedPromptsRecord>();
  readonly #threads = new Map<string, AssistantThreadRecord>();
  /** Every Stop click, oldest first. */
  readonly stops: StopClick[] = [];
  #features: AgentFeatureMode = 'on';
  #stopEventSubscribed = true;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
    // Slack clears an agent-view thread's status (assistant.threads.setStatus) when the app replies there.
    workspace.on('change', (change) => {
      if (change.kind !== 'message' || change.message.bot_id !== workspace.seed.botId) return;
      const { channel, thread_ts: threadTs } = change.message;
      const thread = threadTs ? this.#threads.get(key(channel, threadTs)) : undefined;
      if (thread?.status) this.updateAssistantThread(channel, thread.threadTs, { status: '' });
    });
  }

  /** Whether the app is an agent in a workspace that has the feature (see AgentFeatureMode). */
  get features(): AgentFeatureMode {
    return this.#features;
  }

  /** Whether the app subscribes to `agent_session_stopped` (without it: no Stop button, and a warning). */
  get stopEventSubscribed(): boolean {
    return this.#stopEventSubscribed;
  }

  configure(options: { features?: AgentFeatureMode; stopEventSubscribed?: boolean }): void {
    if (options.features !== undefined) this.#features = options.features;
    if (options.stopEventSubscribed !== undefined) this.#stopEventSubscribed = options.stopEventSubscribed;
    this.#changed();
  }

  /** A method this Slack does not have at all (mode `unknown`). */
  isUnknownMethod(method: string): boolean {
    return this.#features === 'unknown' && (AGENT_METHODS as readonly string[]).includes(method);
  }

  #changed(): void {
    this.#workspace.emit('change', { kind: 'agent' });
  }

  session(channel: string, threadTs: string): AgentSessionRecord | undefined {
    return this.#sessions.get(key(channel, threadTs));
  }

  sessions(): AgentSessionRecord[] {
    return [...this.#sessions.values()];
  }

  /** Creates the session when there is none (with its title and initiator), then sets its status. */
  setStatus(
    input: { channel: string; threadTs: string; status: SessionStatus; title?: string; initiator?: string },
    via: StatusChange['via'],
  ): { session: AgentSessionRecord; created: boolean } {
    const k = key(input.channel, input.threadTs);
    let session = this.#sessions.get(k);
    const created = !session;
    if (!session) {
      session = {
        channel: input.channel,
        threadTs: input.threadTs,
        status: input.status,
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.initiator !== undefined ? { initiator: input.initiator } : {}),
        history: [],
        renames: [],
      };
      this.#sessions.set(k, session);
    }
    session.status = input.status;
    session.history.push({ status: input.status, at: new Date().toISOString(), via });
    this.#changed();
    return { session, created };
  }

  rename(session: AgentSessionRecord, title: string): void {
    session.title = title;
    session.renames.push(title);
    this.#changed();
  }

  /** `icon_emoji`, `icon_url`, `username`: a string sets it, null clears it, absent leaves it. */
  setLook(
    session: AgentSessionRecord,
    look: Partial<Record<'icon_emoji' | 'icon_url' | 'username', string | null>>,
  ) {
    for (const name of ['icon_emoji', 'icon_url', 'username'] as const) {
      const v = look[name];
      if (v === null) delete session[name];
      else if (v !== undefined) session[name] = v;
    }
  }

  stream(channel: string, ts: string): StreamRecord | undefined {
    return this.#streams.get(key(channel, ts));
  }

  /** Streams, oldest first, optionally of one channel or one thread. */
  streams(filter: { channel?: string; threadTs?: string } = {}): StreamRecord[] {
    return [...this.#streams.values()].filter(
      (s) =>
        (filter.channel === undefined || s.channel === filter.channel) &&
        (filter.threadTs === undefined || s.threadTs === filter.threadTs),
    );
  }

  /** Resolves with the session once its status is `status` (re-checked on every change). */
  waitForStatus(
    channel: string,
    threadTs: string,
    status: SessionStatus,
    options: { timeoutMs?: number } = {},
  ): Promise<AgentSessionRecord> {
    return this.#workspace.waitFor(
      () => {
        const session = this.session(channel, threadTs);
        return session?.status === status ? session : undefined;
      },
      { timeoutMs: options.timeoutMs, what: `agent session ${channel} ${threadTs} ${status}` },
    );
  }

  /** Resolves with the first stream of a thread for which `test` holds (e.g. a task complete). */
  waitForStream(
    channel: string,
    threadTs: string,
    test: (stream: StreamRecord) => boolean,
    options: { timeoutMs?: number } = {},
  ): Promise<StreamRecord> {
    return this.#workspace.waitFor(() => this.streams({ channel, threadTs }).find(test), {
      timeoutMs: options.timeoutMs,
      what: `a stream in ${channel} ${threadTs}`,
    });
  }

  addStream(stream: StreamRecord): void {
    this.#streams.set(key(stream.channel, stream.ts), stream);
  }

  /**
   * Lays a stream's state onto its message: text so far, blocks, `streaming_state`, and `metadata` when
   * chat.stopStream gave it. Announced as a change of the message (no `edited`: the app did not edit it).
   */
  render(stream: StreamRecord, message: SandboxMessage, metadata?: unknown): void {
    message.text = streamText(stream);
    message.blocks = streamBlocks(stream);
    message.streaming_state = stream.state;
    if (metadata !== undefined) message.metadata = metadata;
    this.#workspace.emit('change', { kind: 'message_changed', message });
    this.#changed();
  }

  /** A Stop click: Slack stops the thread's open streams and records who clicked. */
  stopClicked(input: { channel: string; threadTs: string; user: string }): StopClick {
    const stopped: string[] = [];
    for (const stream of this.streams({ channel: input.channel, threadTs: input.threadTs })) {
      if (stream.state !== 'in_progress') continue;
      stream.state = 'stopped_by_user';
      stopped.push(stream.ts);
      const message = this.#workspace.findMessage(stream.channel, stream.ts);
      if (message) this.render(stream, message);
    }
    const click: StopClick = { ...input, streamingMessageTs: stopped, at: new Date().toISOString() };
    this.stops.push(click);
    this.#changed();
    return click;
  }

  setPrompts(record: SuggestedPromptsRecord): void {
    this.#prompts.set(key(record.channel, record.threadTs ?? ''), record);
    this.#changed();
  }

  /** The prompts set for a thread, else those set for the conversation. */
  prompts(channel: string, threadTs?: string): SuggestedPromptsRecord | undefined {
    return (
      (threadTs !== undefined ? this.#prompts.get(key(channel, threadTs)) : undefined) ??
      this.#prompts.get(key(channel, ''))
    );
  }

  assistantThread(channel: string, threadTs: string): AssistantThreadRecord | undefined {
    return this.#threads.get(key(channel, threadTs));
  }

  updateAssistantThread(channel: string, threadTs: string, changes: Partial<AssistantThreadRecord>): void {
    const k = key(channel, threadTs);
    const record = this.#threads.get(k) ?? { channel, threadTs };
    this.#threads.set(k, { ...record, ...changes });
    this.#changed();
  }

  /** For the page and /sandbox/state. */
  snapshot(): Record<string, unknown> {
    return {
      features: this.#features,
      stopEventSubscribed: this.#stopEventSubscribed,
      sessions: this.sessions(),
      streams: this.streams().map((s) => ({ ...s, parts: undefined })),
      prompts: [...this.#prompts.values()],
      threads: [...this.#threads.values()],
      stops: this.stops,
    };
  }
}
