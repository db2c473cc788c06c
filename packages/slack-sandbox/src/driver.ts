import { randomUUID } from 'node:crypto';
import * as acts from './driver/agent-acts.js';
import {
  BotLine,
  type BotResponse,
  checkListed,
  type Delivery,
  type SendOptions,
} from './driver/bot-line.js';
import * as codeActs from './driver/code-channel-acts.js';
import {
  actionOf,
  type Draft,
  type ElementRef,
  elementsOf,
  type Obj,
  stateValue,
} from './driver/element-state.js';
import { messageChangedEvent, messageEventOf, richTextOf } from './driver/message-events.js';
import { appHomeOpenedEvent, blockActionsPayload, slashCommandForm } from './driver/payloads.js';
import { SlackbotMcp } from './driver/slackbot-mcp.js';
import * as views from './driver/view-acts.js';
import * as workflows from './driver/workflow-acts.js';
import type { Interactions } from './interactions.js';
import type { SocketModeHub } from './socket-mode.js';
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
 *
 * SlackDriver is the one object a test holds to act as a person, and each of its methods is one thing a
 * person does in Slack, looked up in the workspace. What those acts share has a file of its own in
 * driver/: the line to the bot (signing, Socket Mode, event retries), the payloads, the elements' state,
 * the message events, the acts inside a view (Home tab, modal).
 */

export type { StopResult } from './driver/agent-acts.js';
export type { BotResponse, Delivery, SendOptions, SentToBots } from './driver/bot-line.js';
export { SENT_TO_BOTS } from './driver/bot-line.js';
export type { SlackbotCallOptions, SlackbotMcp, SlackbotReply } from './driver/slackbot-mcp.js';
export type { ViewActInput, ViewValues } from './driver/view-acts.js';
export type { StepRun } from './driver/workflow-acts.js';

/** What a person's message caused: the message, and each event delivered to the bot. */
export interface SaidMessage {
  message: SandboxMessage;
  events: Array<{ type: string; eventId: string; deliveries: Delivery[] }>;
}

export class SlackDriver {
  readonly #workspace: Workspace;
  readonly #interactions: Interactions;
  readonly #line: BotLine;
  readonly #drafts = new Map<string, Draft>();
  /** Slackbot's MCP client, calling the app's MCP server as the person asking (Slack identity auth). */
  readonly slackbot: SlackbotMcp;

  constructor(options: {
    workspace: Workspace;
    interactions: Interactions;
    eventsUrl: string;
    signingSecret: string;
    /** Deliver over Socket Mode instead of POSTing to `eventsUrl`. */
    socketMode?: SocketModeHub;
    /** How long Slack waits for an event's ack before retrying it (Slack: 3 s). */
    eventAckTimeoutMs?: number;
    /** Whether the app is installed in the workspace (OAuth): Slack sends nothing to an app that isn't. */
    installed?: () => boolean;
    /** Whether that installation is org-wide (Enterprise Grid): payloads say `is_enterprise_install`. */
    enterpriseInstall?: () => boolean;
  }) {
    this.#workspace = options.workspace;
    this.#interactions = options.interactions;
    this.#line = new BotLine(options);
    this.slackbot = new SlackbotMcp({
      workspace: options.workspace,
      url: options.eventsUrl ? new URL('/mcp', options.eventsUrl).toString() : undefined,
      signingSecret: options.signingSecret,
    });
  }

  #user(id: string): { id: string; username: string; name: string; team_id: string } {
    const user = this.#workspace.users.get(id);
    if (!user) throw new Error(`sandbox driver: no user ${id}`);
    return { id: user.id, username: user.name, name: user.name, team_id: user.team_id };
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
    const form = slashCommandForm({
      seed: this.#workspace.seed,
      channel,
      user,
      command: input.command ?? '/agent',
      text: input.text ?? '',
      triggerId,
      responseUrl,
    });
    if (this.#line.orgWide) form.set('is_enterprise_install', 'true');
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
    const action = actionOf(ref, input.value);
    const payload = blockActionsPayload({
      seed: this.#workspace.seed,
      user,
      channel: { id: input.channel, name: channel?.name ?? input.channel },
      message: message as Obj,
      messageTs: input.ts,
      threadTs,
      ephemeral,
      triggerId,
      responseUrl,
      values: this.#drafts.get(`${input.user}|${input.channel}|${input.ts}`) ?? {},
      action,
    });
    // Posted by a custom step under its execution's token: the click carries the execution.
    Object.assign(payload, workflows.functionDataOf(this.#workspace, input.channel, input.ts));
    const response = await this.#line.sendPayload(payload, options);
    return { ...response, triggerId };
  }

  /** Acting in a view (driver/view-acts.ts): the workspace, triggers, who is who, and the line to the bot. */
  get #views(): views.ViewActDeps {
    return {
      workspace: this.#workspace,
      interactions: this.#interactions,
      user: (id) => this.#user(id),
      send: (payload, options) => this.#line.sendPayload(payload, options),
    };
  }

  /** The newest open modal of a user. */
  openModal(user: string): SandboxView | undefined {
    return views.openModal(this.#workspace, user);
  }

  /** Presses a button (or changes a select) in a Home tab or a modal: `block_actions` from the view. */
  actInView(
    input: views.ViewActInput,
    options: SendOptions = {},
  ): Promise<BotResponse & { triggerId: string }> {
    return views.actInView(this.#views, input, options);
  }

  /**
   * Submits a modal with what the person typed or chose: `values[blockId][actionId]` is a string (text,
   * single choice) or a string array (checkboxes, multi-select). Returns the bot's answer, e.g. inline errors.
   */
  submitView(
    input: { user: string; viewId: string; values: views.ViewValues },
    options: SendOptions = {},
  ): Promise<BotResponse> {
    return views.submitView(this.#views, input, options);
  }

  closeView(
    input: { user: string; viewId: string },
    options: SendOptions = {},
  ): Promise<BotResponse | undefined> {
    return views.closeView(this.#views, input, options);
  }

  /**
   * Delivers an event as Slack does: when the bot does not answer 2xx within the ack window (3 s), Slack
   * sends it again with `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`, up to 3 retries.
   */
  deliverEvent(event: Obj): Promise<{ eventId: string; deliveries: Delivery[] }> {
    return this.#line.deliverEvent(event);
  }

  /** A message event's body, as Slack shapes it for a person's or a bot's message. */
  messageEvent(message: SandboxMessage): Obj {
    return messageEventOf(this.#workspace, message);
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
      const event = messageChangedEvent(
        this.#workspace,
        message,
        this.#workspace.nextTs(),
        message.edited?.ts,
        previous,
      );
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
          : messageChangedEvent(
              this.#workspace,
              message,
              message.edited?.ts ?? message.ts,
              message.edited?.ts ?? message.ts,
            );
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
      { timeoutMs: options.timeoutMs, what: `reaction :${input.name}: by ${by} on ${input.ts}` },
    );
  }

  /** The Events API `app_home_opened` callback. */
  async appHomeOpened(
    input: { user: string; eventId?: string },
    options: SendOptions = {},
  ): Promise<BotResponse> {
    const home = this.#workspace.homeViews.get(input.user);
    const shown = home ? this.#workspace.views.get(home) : undefined;
    const body = appHomeOpenedEvent({
      seed: this.#workspace.seed,
      ...input,
      orgWide: this.#line.orgWide,
      ...(shown ? { view: views.viewAsSent(shown, {}) } : {}),
    });
    checkListed('events', 'app_home_opened');
    return this.send(JSON.stringify(body), 'application/json', options);
  }

  /**
   * An admin deactivates `user` (offboarding): users.info says `deleted: true` from now on, and the bot
   * gets `user_change` carrying the whole user object, `deleted` set, as Slack sends it to every app in
   * the workspace that subscribes (users:read).
   */
  deactivateUser(input: { user: string }): Promise<{ eventId: string; deliveries: Delivery[] }> {
    const user = this.#workspace.deactivate(input.user);
    if (!user) throw new Error(`sandbox driver: no person ${input.user} to deactivate`);
    const now = Math.floor(Date.now() / 1000);
    return this.deliverEvent({
      type: 'user_change',
      user: { ...user, deleted: true, updated: now },
      cache_ts: now,
      event_ts: this.#workspace.nextTs(),
    });
  }

  /** Slack's Stop button on a processing agent session: its streams stop, `agent_session_stopped` goes out. */
  stopAgentSession(input: { channel: string; threadTs: string; user: string }): Promise<acts.StopResult> {
    return acts.stopAgentSession(this.#workspace, (e) => this.deliverEvent(e), input);
  }

  /** A code channel's context bar `action` item, clicked: `code_channel_action` goes to the bot. */
  clickContextAction(input: { channel: string; key: string; user: string }) {
    return codeActs.clickContextAction(this.#workspace, (e) => this.deliverEvent(e), input);
  }

  /** One of the agent's commands run in its code channel (`/pause`): sent as a slash command invocation. */
  async channelCommand(
    input: { user: string; channel: string; name: string; text?: string },
    options: SendOptions = {},
  ): Promise<BotResponse & { triggerId: string; responseUrl: string }> {
    const record = codeActs.codeChannelFor(this.#workspace, input.channel, input.user);
    const name = input.name.replace(/^\//, '');
    if (!record.commands.some((c) => c.name === name))
      throw new Error(`sandbox driver: the agent has no /${name} in ${input.channel}`);
    this.#workspace.codeChannels.acted({
      kind: 'command',
      channel: record.channelId,
      user: input.user,
      name,
      ...(input.text ? { text: input.text } : {}),
    });
    return this.command(
      { user: input.user, channel: record.channelId, text: input.text ?? '', command: `/${name}` },
      options,
    );
  }

  /**
   * A person (`user`) runs a workflow whose step is the app's custom step `callbackId` (Workflow
   * Builder), or it runs with nobody behind it (no `user`: a schedule): Slack sends `function_executed`,
   * naming the person in the step's interactivity inputs. With `next`, the workflow's next step posts the
   * outputs in that channel.
   */
  runStep(input: {
    callbackId: string;
    inputs: Record<string, unknown>;
    user?: string;
    next?: { channel: string };
  }): Promise<workflows.StepRun> {
    return workflows.runStep(
      this.#workspace,
      (e) => this.deliverEvent(e),
      input,
      (user, executionId) => this.#interactions.issuePointer(user, executionId),
    );
  }

  /** The person opens the app's Messages tab (agent view): `app_home_opened` with `tab: "messages"`. */
  openMessagesTab(input: { user: string }): Promise<{ eventId: string; deliveries: Delivery[] }> {
    return acts.openMessagesTab(this.#workspace, (e) => this.deliverEvent(e), input);
  }

  /** Clicks a suggested prompt (by index, default 0, or title): it is posted as the person's new DM. */
  clickSuggestedPrompt(input: { user: string; index?: number; title?: string }): Promise<SaidMessage> {
    return this.dm({ user: input.user, text: acts.suggestedPromptText(this.#workspace, input) });
  }

  /** Posts a raw body to the bot, signed as Slack signs it (or sends it as a Socket Mode envelope). */
  send(body: string, contentType: string, options: SendOptions = {}): Promise<BotResponse> {
    return this.#line.send(body, contentType, options);
  }
}
