/**
 * Code channels ("Slack Code"): a channel per agent session, with its context bar, view tabs, channel
 * commands, canvases and archive. The Web API methods (api/code-channels.ts) change it; the driver plays a
 * person clicking a context bar action or running a channel command; tests and the page read it. Every
 * change is announced on the workspace (`kind: 'agent'`), so the page refreshes and `waitFor` re-checks.
 */

import type { SandboxChannel, Workspace } from '../workspace.js';

/** `on`: the app may use code channels; `off`: the workspace refuses them (`missing_scope`). */
export const CODE_CHANNEL_MODES = ['on', 'off'] as const;
export type CodeChannelMode = (typeof CODE_CHANNEL_MODES)[number];

export const CONTEXT_BAR_ICONS = [
  'branch',
  'folder',
  'hierarchy',
  'life-ring',
  'link',
  'globe',
  'terminal',
  'code',
  'search',
  'lock',
] as const;
export const VIEW_TYPES = ['html', 'diff', 'block_kit', 'canvas', 'pull_request'] as const;
export type ViewType = (typeof VIEW_TYPES)[number];

export interface ContextBarItem {
  key: string;
  label: string;
  icon?: string;
  url?: string;
  item_type: 'info' | 'action';
}

export interface CodeChannelView {
  view_id: string;
  type: ViewType;
  /** The upsert key (a diff view has none: one per channel). */
  view_key?: string;
  label: string;
  content?: string;
  blocks?: unknown[];
  canvas_id?: string;
  pr_url?: string;
  content_version: number;
}

export interface ChannelCommand {
  name: string;
  description?: string;
  argument_hint?: string;
  should_escape?: boolean;
}

export interface CodeChannelRecord {
  channelId: string;
  name: string;
  sessionId?: string;
  origin?: { channel_id: string; ts: string };
  contextBar: ContextBarItem[];
  summaryMessage?: { message_ts: string; thread_ts?: string };
  agentResource?: Record<string, string>;
  views: CodeChannelView[];
  commands: ChannelCommand[];
  archived: boolean;
  /** The summary Slack shared back as a reply on the origin message when it archived the channel. */
  sharedSummaryTs?: string;
}

export interface SandboxCanvas {
  id: string;
  title: string;
  content: string;
  /** Times its content was replaced (setCanvasContent). */
  versions: number;
}

/** A context bar action clicked or a channel command run: what the driver sent the bot. */
export interface CodeChannelAct {
  kind: 'action' | 'command';
  channel: string;
  user: string;
  name: string;
  text?: string;
}

export class CodeChannelState {
  readonly #workspace: Workspace;
  readonly #channels = new Map<string, CodeChannelRecord>();
  readonly #bySession = new Map<string, string>();
  readonly canvases = new Map<string, SandboxCanvas>();
  /** Every action click and command run, oldest first. */
  readonly acts: CodeChannelAct[] = [];
  #mode: CodeChannelMode = 'on';
  #seq = 0;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  get mode(): CodeChannelMode {
    return this.#mode;
  }

  configure(mode: CodeChannelMode): void {
    this.#mode = mode;
    this.#changed();
  }

  #changed(): void {
    this.#workspace.emit('change', { kind: 'agent' });
  }

  #id(prefix: string): string {
    this.#seq += 1;
    return `${prefix}${String(this.#seq).padStart(8, '0')}`;
  }

  get(channelId: string): CodeChannelRecord | undefined {
    return this.#channels.get(channelId);
  }

  bySession(sessionId: string): CodeChannelRecord | undefined {
    const id = this.#bySession.get(sessionId);
    return id ? this.#channels.get(id) : undefined;
  }

  all(): CodeChannelRecord[] {
    return [...this.#channels.values()];
  }

  /**
   * A new channel, its bot and (with an origin) the origin message's author in it; privacy as asked, else
   * the origin channel's. The same `sessionId` gives back the channel made for it.
   */
  create(input: {
    name: string;
    sessionId?: string;
    isPrivate: boolean;
    origin?: { channel_id: string; ts: string; author?: string };
  }): { record: CodeChannelRecord; created: boolean } {
    const existing = input.sessionId ? this.bySession(input.sessionId) : undefined;
    if (existing) return { record: existing, created: false };
    const channelId = this.#id('C0CODE');
    const channel: SandboxChannel = {
      id: channelId,
      name: slug(input.name, channelId),
      is_private: input.isPrivate,
      is_im: false,
      is_member: true,
    };
    const members = input.origin?.author ? [input.origin.author] : [];
    this.#workspace.addChannel(channel, members);
    const record: CodeChannelRecord = {
      channelId,
      name: input.name,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      ...(input.origin ? { origin: { channel_id: input.origin.channel_id, ts: input.origin.ts } } : {}),
      contextBar: [],
      views: [],
      commands: [],
      archived: false,
    };
    this.#channels.set(channelId, record);
    if (input.sessionId) this.#bySession.set(input.sessionId, channelId);
    this.#changed();
    return { record, created: true };
  }

  setProperties(
    record: CodeChannelRecord,
    changes: Pick<Partial<CodeChannelRecord>, 'contextBar' | 'summaryMessage' | 'agentResource'>,
  ): void {
    Object.assign(record, changes);
    this.#changed();
  }

  /** Upserts by `view_key` (a diff view is the channel's one diff). */
  setView(record: CodeChannelRecord, view: Omit<CodeChannelView, 'view_id' | 'content_version'>) {
    const same = record.views.find((v) =>
      view.type === 'diff' ? v.type === 'diff' : v.view_key !== undefined && v.view_key === view.view_key,
    );
    if (same) {
      Object.assign(same, view, { content_version: same.content_version + 1 });
      this.#changed();
      return { view: same, created: false };
    }
    const created: CodeChannelView = { ...view, view_id: this.#id('T0VIEW'), content_version: 1 };
    record.views.push(created);
    this.#changed();
    return { view: created, created: true };
  }

  setCommands(record: CodeChannelRecord, commands: ChannelCommand[]): void {
    record.commands = commands;
    this.#changed();
  }

  createCanvas(title: string, content: string): SandboxCanvas {
    const canvas: SandboxCanvas = { id: this.#id('F0CANVAS'), title, content, versions: 1 };
    this.canvases.set(canvas.id, canvas);
    this.#changed();
    return canvas;
  }

  setCanvasContent(canvas: SandboxCanvas, content: string): void {
    if (canvas.content === content) return;
    canvas.content = content;
    canvas.versions += 1;
    this.#changed();
  }

  /**
   * Archived: no more posts. A summary message (in the channel) is shared back as a reply on the origin
   * message, as Slack does when the channel has an origin link.
   */
  archive(record: CodeChannelRecord, summaryTs: string | undefined): void {
    record.archived = true;
    const channel = this.#workspace.channels.get(record.channelId);
    if (channel) channel.is_archived = true;
    const summary = summaryTs ? this.#workspace.findMessage(record.channelId, summaryTs) : undefined;
    if (summary) record.summaryMessage = { message_ts: summary.ts };
    if (summary && record.origin && this.#workspace.findMessage(record.origin.channel_id, record.origin.ts)) {
      const { seed } = this.#workspace;
      const shared = this.#workspace.post({
        channel: record.origin.channel_id,
        thread_ts: record.origin.ts,
        bot_id: seed.botId,
        app_id: seed.appId,
        user: seed.botUserId,
        text: summary.text ?? '',
        ...(summary.blocks ? { blocks: summary.blocks } : {}),
      });
      record.sharedSummaryTs = shared.ts;
    }
    this.#changed();
  }

  acted(act: CodeChannelAct): void {
    this.acts.push(act);
    this.#changed();
  }

  snapshot(): Record<string, unknown> {
    return {
      mode: this.#mode,
      channels: this.all(),
      canvases: [...this.canvases.values()],
      acts: this.acts.slice(-50),
    };
  }
}

/** A channel name as Slack makes one: lower case, words joined by dashes, at most 80 characters. */
function slug(name: string, fallback: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return (words || fallback.toLowerCase()).slice(0, 80);
}
