import type { Interactions } from './interactions.js';
import { slackSignature } from './signing.js';
import type { EnvelopeType, SocketModeHub } from './socket-mode.js';
import type { SandboxMessage, SandboxView, Workspace } from './workspace.js';

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
    if (Array.isArray(block.elements) && block.type === 'actions') {
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

  constructor(options: {
    workspace: Workspace;
    interactions: Interactions;
    eventsUrl: string;
    signingSecret: string;
    /** Deliver over Socket Mode instead of POSTing to `eventsUrl`. */
    socketMode?: SocketModeHub;
  }) {
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
    if (input.value !== undefined && ref.element.type !== 'button')
      this.choose({ ...input, value: input.value });
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
    if (element.type === 'button') {
      action.text = element.text;
      if (element.value !== undefined) action.value = element.value;
      if (element.style !== undefined) action.style = element.style;
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
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    const response = await fetch(this.#eventsUrl, { method: 'POST', headers, body });
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
