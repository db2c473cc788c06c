import { randomUUID } from 'node:crypto';
import type { Interactions } from './interactions.js';
import { slackSignature } from './signing.js';
import type { EnvelopeType, SocketModeHub } from './socket-mode.js';
import {
  randomId,
  type SandboxMessage,
  type SandboxReaction,
  type SandboxView,
  type Workspace,
  type WorkspaceChange,
} from './workspace.js';

/**
 * Plays the person: sends what Slack sends to a bot's Request URL — slash commands, button clicks,
 * selections, view submissions, events — built from the sandbox's state and signed as Slack signs.
 * It speaks to the bot only over HTTP.
 */

export interface SendOptions {
  /** Sign with a wrong secret (the bot must refuse). */
  forgeSignature?: boolean;
  /** Shift the signed timestamp (e.g. -600 for a stale request the bot must refuse). */
  timestampOffsetSeconds?: number;
  /** Mark an Events API delivery as Slack's retry number N. */
  retryNum?: number;
  /** `X-Slack-Retry-Reason` with retryNum (default http_timeout). */
  retryReason?: string;
  /** Give up waiting for the bot's answer after this long (rejects with a TimeoutError). */
  timeoutMs?: number;
}

/** A message's text as the rich_text elements a Slack client sends with it (mentions and links kept). */
function richTextOf(text: string): Obj[] {
  const out: Obj[] = [];
  const pattern = /<@([UW][A-Z0-9]+)>|<#([CG][A-Z0-9]+)(?:\|[^>]*)?>|<(https?:[^>|]+)(?:\|([^>]*))?>/g;
  let last = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push({ type: 'text', text: text.slice(last, m.index) });
    if (m[1]) out.push({ type: 'user', user_id: m[1] });
    else if (m[2]) out.push({ type: 'channel', channel_id: m[2] });
    else out.push({ type: 'link', url: m[3], ...(m[4] ? { text: m[4] } : {}) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ type: 'text', text: text.slice(last) });
  return out;
}

/** One attempt at delivering an Events API event, as Slack retries it. */
export interface Delivery {
  attempt: number;
  /** The bot's HTTP status, or 'timeout' when it did not answer within the ack window. */
  status: number | 'timeout';
  /** Why this attempt was a retry (`X-Slack-Retry-Reason`); empty for the first. */
  reason: string;
}

/** What a person's message caused: the message, and each event delivered to the bot. */
export interface SaidMessage {
  message: SandboxMessage;
  events: Array<{ type: string; eventId: string; deliveries: Delivery[] }>;
}

export interface BotResponse {
  status: number;
  /** Parsed JSON when the bot answered JSON (e.g. `response_action: 'errors'`), else the text. */
  body: unknown;
}

type Obj = Record<string, unknown>;
type ElementRef = { blockId: string; element: Obj };

/** What a person has picked in a message's checkboxes and selects before clicking a button. */
type Draft = Record<string, Record<string, Obj>>;

function elementsOf(blocks: unknown): ElementRef[] {
  if (!Array.isArray(blocks)) return [];
  const out: ElementRef[] = [];
  blocks.forEach((block: Obj, i) => {
    const blockId = typeof block.block_id === 'string' ? block.block_id : `b${i}`;
    if (Array.isArray(block.elements) && (block.type === 'actions' || block.type === 'context_actions')) {
      for (const e of block.elements as Obj[]) out.push({ blockId, element: e });
    }
    if (block.accessory && typeof block.accessory === 'object')
      out.push({ blockId, element: block.accessory as Obj });
    if (block.element && typeof block.element === 'object')
      out.push({ blockId, element: block.element as Obj });
  });
  return out;
}

function optionByValue(element: Obj, value: string): Obj {
  const options = (element.options ?? []) as Obj[];
  const option = options.find((o) => o.value === value);
  if (!option) throw new Error(`sandbox driver: "${value}" is not an option of ${String(element.action_id)}`);
  return option;
}

/** The `state.values` entry Slack sends for an element given what the person typed or chose. */
function stateValue(element: Obj, value: unknown): Obj {
  const type = String(element.type);
  switch (type) {
    case 'plain_text_input':
      return { type, value: value === undefined ? null : String(value) };
    case 'static_select':
    case 'radio_buttons':
      return { type, selected_option: value === undefined ? null : optionByValue(element, String(value)) };
    case 'multi_static_select':
    case 'checkboxes': {
      const values = Array.isArray(value) ? value.map(String) : [];
      return { type, selected_options: values.map((v) => optionByValue(element, v)) };
    }
    default:
      return { type, value };
  }
}

export class SlackDriver {
  readonly #workspace: Workspace;
  readonly #interactions: Interactions;
  readonly #eventsUrl: string;
  readonly #signingSecret: string;
  readonly #socketMode: SocketModeHub | undefined;
  readonly #drafts = new Map<string, Draft>();
  readonly #eventAckTimeoutMs: number;

  constructor(options: {
    workspace: Workspace;
    interactions: Interactions;
    eventsUrl: string;
    signingSecret: string;
    /** Deliver over Socket Mode instead of POSTing to `eventsUrl`. */
    socketMode?: SocketModeHub;
    /** How long Slack waits for an event's ack before retrying it (Slack: 3 s). */
    eventAckTimeoutMs?: number;
  }) {
    this.#eventAckTimeoutMs = options.eventAckTimeoutMs ?? 3_000;
    this.#socketMode = options.socketMode;
    this.#workspace = options.workspace;
    this.#interactions = options.interactions;
    this.#eventsUrl = options.eventsUrl;
    this.#signingSecret = options.signingSecret;
  }

  #user(id: string): { id: string; username: string; name: string; team_id: string } {
    const user = this.#workspace.users.get(id);
    if (!user) throw new Error(`sandbox driver: no user ${id}`);
    return { id: user.id, username: user.name, name: user.name, team_id: user.team_id };
  }

  #team() {
    return { id: this.#workspace.seed.teamId, domain: this.#workspace.seed.teamDomain };
  }

  /** `/agent start …` as Slack posts it (form-encoded). */
  async command(
    input: { user: string; channel: string; text?: string; command?: string },
    options: SendOptions = {},
  ): Promise<BotResponse & { triggerId: string; responseUrl: string }> {
    const channel = this.#workspace.channel(input.channel);
    if (!channel) throw new Error(`sandbox driver: no channel ${input.channel}`);
    const user = this.#user(input.user);
    const triggerId = this.#interactions.issueTrigger(user.id);
    const responseUrl = this.#interactions.issueResponseUrl({ channel: channel.id, user: user.id });
    const { seed } = this.#workspace;
    const form = new URLSearchParams({
      token: 'sandbox-verification-token',
      team_id: seed.teamId,
      team_domain: seed.teamDomain,
      channel_id: channel.id,
      channel_name: channel.name,
      user_id: user.id,
      user_name: user.username,
      command: input.command ?? '/agent',
      text: input.text ?? '',
      api_app_id: seed.appId,
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: triggerId,
    });
    const response = await this.send(form.toString(), 'application/x-www-form-urlencoded', options);
    if (response.status === 200) this.#interactions.showCommandReply(responseUrl, response.body);
    return { ...response, triggerId, responseUrl };
  }

  /** Finds a message (or the user's ephemeral) the person can see. */
  #message(channel: string, ts: string, user: string): { message: SandboxMessage | Obj; ephemeral: boolean } {
    const message = this.#workspace.findMessage(channel, ts);
    if (message) return { message, ephemeral: false };
    const ephemeral = this.#workspace.ephemerals.find(
      (e) => e.ts === ts && e.user === user && e.channel === channel,
    );
    if (ephemeral) return { message: { type: 'message', ...ephemeral }, ephemeral: true };
    throw new Error(`sandbox driver: no message ${ts} in ${channel} visible to ${user}`);
  }

  #find(blocks: unknown, actionId: string): ElementRef {
    const found = elementsOf(blocks).find((r) => r.element.action_id === actionId);
    if (!found) throw new Error(`sandbox driver: no element with action_id ${actionId}`);
    return found;
  }

  /** Picks options in a message's checkboxes / selects without sending anything (Slack sends on click). */
  choose(input: {
    user: string;
    channel: string;
    ts: string;
    actionId: string;
    value: string | string[];
  }): void {
    const { message } = this.#message(input.channel, input.ts, input.user);
    const ref = this.#find((message as Obj).blocks, input.actionId);
    const key = `${input.user}|${input.channel}|${input.ts}`;
    const draft = this.#drafts.get(key) ?? {};
    draft[ref.blockId] = { ...draft[ref.blockId], [input.actionId]: stateValue(ref.element, input.value) };
    this.#drafts.set(key, draft);
  }

  /** Clicks a button, or changes a select / checkboxes (which Slack sends at once as a block action). */
  async act(
    input: { user: string; channel: string; ts: string; actionId: string; value?: string | string[] },
    options: SendOptions = {},
  ): Promise<BotResponse & { triggerId: string }> {
    const { message, ephemeral } = this.#message(input.channel, input.ts, input.user);
    const ref = this.#find((message as Obj).blocks, input.actionId);
    const pressOnly = ['button', 'icon_button', 'feedback_buttons'].includes(String(ref.element.type));
    if (input.value !== undefined && !pressOnly) this.choose({ ...input, value: input.value });
    const user = this.#user(input.user);
    const channel = this.#workspace.channel(input.channel);
    const triggerId = this.#interactions.issueTrigger(user.id);
    const threadTs = (message as Obj).thread_ts as string | undefined;
    const responseUrl = this.#interactions.issueResponseUrl({
      channel: input.channel,
      user: user.id,
      messageTs: input.ts,
      isEphemeral: ephemeral,
      ...(threadTs ? { threadTs } : {}),
    });
    const element = ref.element;
    const action: Obj = {
      type: element.type,
      action_id: element.action_id,
      block_id: ref.blockId,
      action_ts: `${Date.now() / 1000}`,
    };
    if (element.type === 'button' || element.type === 'icon_button') {
      action.text = element.text;
      if (element.value !== undefined) action.value = element.value;
      if (element.style !== undefined) action.style = element.style;
    } else if (element.type === 'feedback_buttons') {
      // A press of 👍 or 👎: the action carries the pressed button's text and value.
      const pressed = [element.positive_button, element.negative_button].find(
        (b) => (b as Obj | undefined)?.value === input.value,
      ) as Obj | undefined;
      if (!pressed)
        throw new Error(
          `sandbox driver: ${String(element.action_id)} has no button with value ${JSON.stringify(input.value)}`,
        );
      action.text = pressed.text;
      action.value = pressed.value;
    } else {
      Object.assign(action, stateValue(element, input.value));
    }
    const draft = this.#drafts.get(`${input.user}|${input.channel}|${input.ts}`) ?? {};
    const payload = {
      type: 'block_actions',
      user,
      api_app_id: this.#workspace.seed.appId,
      token: 'sandbox-verification-token',
      container: {
        type: 'message',
        message_ts: input.ts,
        channel_id: input.channel,
        is_ephemeral: ephemeral,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      },
      trigger_id: triggerId,
      team: this.#team(),
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: input.channel, name: channel?.name ?? input.channel },
      message: message,
      state: { values: draft },
      response_url: responseUrl,
      actions: [action],
    };
    const response = await this.#sendPayload(payload, options);
    return { ...response, triggerId };
  }

  #view(viewId: string): SandboxView {
    const view = this.#workspace.views.get(viewId);
    if (!view) throw new Error(`sandbox driver: no view ${viewId}`);
    return view;
  }

  /** The newest open modal of a user. */
  openModal(user: string): SandboxView | undefined {
    return [...this.#workspace.views.values()]
      .reverse()
      .find((v) => v.user === user && v.type === 'modal' && !v.closed);
  }

  /**
   * Submits a modal with what the person typed or chose: `values[blockId][actionId]` is a string (text,
   * single choice) or a string array (checkboxes, multi-select). Returns the bot's answer, e.g. inline errors.
   */
  async submitView(
    input: {
      user: string;
      viewId: string;
      values: Record<string, Record<string, string | string[] | undefined>>;
    },
    options: SendOptions = {},
  ): Promise<BotResponse> {
    const view = this.#view(input.viewId);
    const refs = elementsOf(view.blocks);
    const values: Record<string, Record<string, Obj>> = {};
    // Every input of the modal is in state.values, typed or not, as Slack sends it.
    for (const ref of refs) {
      const actionId = String(ref.element.action_id);
      const given = input.values[ref.blockId]?.[actionId];
      values[ref.blockId] = { ...values[ref.blockId], [actionId]: stateValue(ref.element, given) };
    }
    for (const [blockId, byAction] of Object.entries(input.values)) {
      for (const actionId of Object.keys(byAction)) {
        if (!values[blockId]?.[actionId])
          throw new Error(`sandbox driver: the view has no ${blockId}/${actionId}`);
      }
    }
    const payload = {
      type: 'view_submission',
      team: this.#team(),
      user: this.#user(input.user),
      api_app_id: this.#workspace.seed.appId,
      token: 'sandbox-verification-token',
      trigger_id: this.#interactions.issueTrigger(input.user),
      view: { ...view, state: { values } },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    };
    const response = await this.#sendPayload(payload, options);
    const answer = response.body as Obj | undefined;
    // Slack closes the modal unless the bot answered with errors or a new view.
    if (response.status === 200 && !(answer && typeof answer === 'object' && 'response_action' in answer)) {
      this.#workspace.saveView({ ...view, closed: true });
    }
    return response;
  }

  async closeView(input: { user: string; viewId: string }, options: SendOptions = {}): Promise<BotResponse> {
    const view = this.#view(input.viewId);
    this.#workspace.saveView({ ...view, closed: true });
    return this.#sendPayload(
      {
        type: 'view_closed',
        team: this.#team(),
        user: this.#user(input.user),
        api_app_id: this.#workspace.seed.appId,
        view,
        is_cleared: false,
        is_enterprise_install: false,
      },
      options,
    );
  }

  /** The Events API wrapper Slack puts around every event, for this workspace and app. */
  #eventCallback(event: Obj): Obj {
    const { seed } = this.#workspace;
    return {
      token: 'sandbox-verification-token',
      team_id: seed.teamId,
      api_app_id: seed.appId,
      event,
      type: 'event_callback',
      event_id: `Ev${randomId('', 10)}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: seed.teamId,
          user_id: seed.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
      event_context: `4-${randomId('', 16)}`,
    };
  }

  /**
   * Delivers an event as Slack does: when the bot does not answer 2xx within the ack window (3 s), Slack
   * sends it again with `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`, up to 3 retries. (Slack spaces
   * its retries out — at once, after 1 minute, after 5 — the sandbox sends them at once.)
   */
  async deliverEvent(event: Obj): Promise<{ eventId: string; deliveries: Delivery[] }> {
    const body = this.#eventCallback(event);
    const text = JSON.stringify(body);
    const deliveries: Delivery[] = [];
    let reason = '';
    for (let attempt = 0; attempt <= 3; attempt++) {
      let status: number | 'timeout';
      if (this.#socketMode) {
        status = await this.#socketMode
          .deliver('events_api', body, { attempt, reason })
          .then(() => 200 as const)
          .catch(() => 'timeout' as const);
      } else {
        status = await this.send(text, 'application/json', {
          ...(attempt > 0 ? { retryNum: attempt, retryReason: reason } : {}),
          timeoutMs: this.#eventAckTimeoutMs,
        }).then(
          (r) => r.status,
          (error: Error) => {
            if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timeout' as const;
            throw error;
          },
        );
      }
      deliveries.push({ attempt, status, reason });
      const ok = typeof status === 'number' && status >= 200 && status < 300;
      this.#workspace.recordCall({
        method: String(event.type) + (event.subtype ? ` (${String(event.subtype)})` : ''),
        ...(typeof event.channel === 'string' ? { channel: event.channel } : {}),
        status: status === 'timeout' ? 0 : status,
        ok,
        ...(ok ? {} : { error: status === 'timeout' ? 'not acked in time' : `HTTP ${status}` }),
        event: { id: String(body.event_id), retry: attempt, reason },
      });
      if (ok) break;
      reason = status === 'timeout' ? (this.#socketMode ? 'timeout' : 'http_timeout') : 'http_error';
    }
    return { eventId: String(body.event_id), deliveries };
  }

  /** Which `message.*` subscription a channel's messages come under. */
  #channelType(channelId: string): 'channel' | 'group' | 'im' {
    const channel = this.#workspace.channels.get(channelId);
    if (channel?.is_im) return 'im';
    return channel?.is_private ? 'group' : 'channel';
  }

  /** A message event's body, as Slack shapes it for a person's or a bot's message. */
  messageEvent(message: SandboxMessage): Obj {
    const parent = message.thread_ts
      ? this.#workspace.findMessage(message.channel, message.thread_ts)
      : undefined;
    const { reactions, ...rest } = message;
    return {
      ...rest,
      team: this.#workspace.seed.teamId,
      event_ts: message.ts,
      channel_type: this.#channelType(message.channel),
      ...(parent && parent.ts !== message.ts ? { parent_user_id: parent.user ?? parent.bot_id } : {}),
    };
  }

  /**
   * A person writes a message (in a channel, a thread, or the DM with the bot). It lands in the
   * workspace, and the bot gets what its subscriptions bring: `message` (message.channels / groups / im)
   * wherever it is a member, and `app_mention` when the text mentions it outside a DM.
   */
  async say(input: { user: string; channel: string; text: string; threadTs?: string }): Promise<SaidMessage> {
    const person = this.#user(input.user);
    const channel = this.#workspace.channel(input.channel);
    if (!channel) throw new Error(`sandbox driver: no channel ${input.channel}`);
    if (input.text.trim() === '') throw new Error('sandbox driver: a message needs some text');
    if (input.threadTs && !this.#workspace.findMessage(channel.id, input.threadTs))
      throw new Error(`sandbox driver: no message ${input.threadTs} in ${channel.id} to reply to`);
    const message = this.#workspace.post({
      channel: channel.id,
      user: person.id,
      text: input.text,
      client_msg_id: randomUUID(),
      blocks: [
        {
          type: 'rich_text',
          block_id: randomId('', 5),
          elements: [{ type: 'rich_text_section', elements: richTextOf(input.text) }],
        },
      ],
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    });
    const events: SaidMessage['events'] = [];
    if (!channel.is_member && !channel.is_im) return { message, events };
    const base = this.messageEvent(message);
    events.push({ type: 'message', ...(await this.deliverEvent(base)) });
    const botId = this.#workspace.seed.botUserId;
    if (!channel.is_im && input.text.includes(`<@${botId}>`)) {
      const { channel_type, ...mention } = base;
      events.push({ type: 'app_mention', ...(await this.deliverEvent({ ...mention, type: 'app_mention' })) });
    }
    return { message, events };
  }

  /** `@agents <text>` in a channel (or a thread of it), as the composer turns `@agents` into `<@BOTID>`. */
  mention(input: { user: string; channel: string; text: string; threadTs?: string }): Promise<SaidMessage> {
    const tag = `<@${this.#workspace.seed.botUserId}>`;
    return this.say({
      ...input,
      text: input.text.includes(tag) ? input.text : `${tag} ${input.text}`.trim(),
    });
  }

  /** A reply in a message's thread. */
  replyInThread(input: {
    user: string;
    channel: string;
    threadTs: string;
    text: string;
  }): Promise<SaidMessage> {
    return this.say(input);
  }

  /** A message to the bot in its Messages tab (the `im` channel between the person and the bot). */
  dm(input: { user: string; text: string; threadTs?: string }): Promise<SaidMessage> {
    return this.say({ ...input, channel: input.user });
  }

  /** `message_changed` as Slack sends an edit: the message as it is now, and for a person's edit as it was. */
  #messageChanged(
    message: SandboxMessage,
    ts: string,
    eventTs: string | undefined,
    previous?: SandboxMessage,
  ): Obj {
    return {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: message.channel,
      channel_type: this.#channelType(message.channel),
      ts,
      event_ts: eventTs,
      message: { ...message, reactions: undefined },
      ...(previous ? { previous_message: { ...previous, reactions: undefined } } : {}),
    };
  }

  /** A person edits their message: Slack sends `message` with subtype `message_changed`. */
  async edit(input: { user: string; channel: string; ts: string; text: string }): Promise<SaidMessage> {
    const message = this.#workspace.findMessage(input.channel, input.ts);
    if (!message || message.user !== input.user)
      throw new Error(`sandbox driver: ${input.user} has no message ${input.ts} in ${input.channel}`);
    const previous = { ...message };
    this.#workspace.update(message, { text: input.text });
    const channel = this.#workspace.channels.get(message.channel);
    const events: SaidMessage['events'] = [];
    if (channel && (channel.is_member || channel.is_im)) {
      const event = this.#messageChanged(message, this.#workspace.nextTs(), message.edited?.ts, previous);
      events.push({ type: 'message', ...(await this.deliverEvent(event)) });
    }
    return { message, events };
  }

  /**
   * Slack also sends a bot its own messages (with `bot_id`) and edits, where it is subscribed: a bot that
   * does not ignore them answers itself. From this call on, the bot's posts and edits are delivered too.
   * Returns the function that stops it.
   */
  echoBotMessages(): () => void {
    const botId = this.#workspace.seed.botId;
    const onChange = (change: WorkspaceChange) => {
      if (change.kind !== 'message' && change.kind !== 'message_changed') return;
      const message = change.message;
      const channel = this.#workspace.channels.get(message.channel);
      if (message.bot_id !== botId || !channel || !(channel.is_member || channel.is_im)) return;
      const event =
        change.kind === 'message'
          ? this.messageEvent(message)
          : this.#messageChanged(message, message.edited?.ts ?? message.ts, message.edited?.ts ?? message.ts);
      // The bot may be gone (a test stopped it): Slack would give up on it too.
      this.deliverEvent(event).catch(() => {});
    };
    this.#workspace.on('change', onChange);
    return () => this.#workspace.off('change', onChange);
  }

  /** Resolves when `name` is among the reactions on a message (by default the bot's), e.g. 👀 on a reply. */
  waitForReaction(
    input: { channel: string; ts: string; name: string; user?: string },
    options: { timeoutMs?: number } = {},
  ): Promise<SandboxReaction> {
    const channel = this.#workspace.channel(input.channel)?.id ?? input.channel;
    const by = input.user ?? this.#workspace.seed.botUserId;
    return this.#workspace.waitFor(
      () =>
        this.#workspace
          .findMessage(channel, input.ts)
          ?.reactions?.find((r) => r.name === input.name && r.users.includes(by)),
      { timeoutMs: options.timeoutMs ?? 10_000, what: `reaction :${input.name}: by ${by} on ${input.ts}` },
    );
  }

  /** The Events API `app_home_opened` callback. */
  async appHomeOpened(
    input: { user: string; eventId?: string },
    options: SendOptions = {},
  ): Promise<BotResponse> {
    const { seed } = this.#workspace;
    const body = {
      token: 'sandbox-verification-token',
      team_id: seed.teamId,
      api_app_id: seed.appId,
      type: 'event_callback',
      event_id: input.eventId ?? `Ev${Date.now()}${Math.floor(Math.random() * 1e6)}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'app_home_opened',
        user: input.user,
        channel: `D${input.user.slice(1)}`,
        tab: 'home',
        event_ts: `${Date.now() / 1000}`,
      },
    };
    return this.send(JSON.stringify(body), 'application/json', options);
  }

  #sendPayload(payload: unknown, options: SendOptions): Promise<BotResponse> {
    return this.send(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
      options,
    );
  }

  /** Posts a raw body to the bot, signed as Slack signs it (or sends it as a Socket Mode envelope). */
  async send(body: string, contentType: string, options: SendOptions = {}): Promise<BotResponse> {
    if (this.#socketMode) return this.#sendOverSocket(body, contentType);
    const timestamp = Math.floor(Date.now() / 1000) + (options.timestampOffsetSeconds ?? 0);
    const secret = options.forgeSignature ? `${this.#signingSecret}-forged` : this.#signingSecret;
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(secret, timestamp, body),
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
    }
    const response = await fetch(this.#eventsUrl, {
      method: 'POST',
      headers,
      body,
      ...(options.timeoutMs !== undefined ? { signal: AbortSignal.timeout(options.timeoutMs) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: parsed };
  }

  /** The same request as Socket Mode carries it: parsed, in an envelope, answered by the app's ack. */
  async #sendOverSocket(body: string, contentType: string): Promise<BotResponse> {
    let type: EnvelopeType;
    let payload: unknown;
    if (contentType.includes('json')) {
      type = 'events_api';
      payload = JSON.parse(body);
    } else {
      const form = Object.fromEntries(new URLSearchParams(body));
      if (typeof form.payload === 'string') {
        type = 'interactive';
        payload = JSON.parse(form.payload);
      } else {
        type = 'slash_commands';
        payload = form;
      }
    }
    const ack = await (this.#socketMode as SocketModeHub).deliver(type, payload);
    return { status: 200, body: ack };
  }
}
