/**
 * Code channels: `agents.conversations.create / setProperties / setView / listViews / removeView /
 * setCommands / setCanvasContent / archive`, and `canvases.create` for the canvases a view shows.
 * Arguments as @slack/web-api 8.2.0 types them; each refusal names the field and the rule, with the error
 * codes the reference pages name (`not_agent_channel`, `content_too_large`, `view_not_found`,
 * `already_archived`), `invalid_arguments` for the schema's own checks.
 */

import {
  type ChannelCommand,
  CONTEXT_BAR_ICONS,
  type CodeChannelRecord,
  type ContextBarItem,
  VIEW_TYPES,
  type ViewType,
} from '../agent/code-channels.js';
import { describeProblem, validateBlocks } from '../blockkit/validate.js';
import { invalidArgument } from './agents.js';
import { type ApiContext, type Args, json, type Method, required, SlackApiError, str } from './types.js';

const SCOPE = 'code_channels:manage';
const MAX_CONTEXT_ITEMS = 5;
const MAX_COMMANDS = 10;
const MAX_VIEWS = 5;
const MAX_CONTENT_BYTES = 1_000_000;
/** Slack's own commands: a channel command may not take one of their names. */
const BUILT_IN_COMMANDS = new Set(
  'active,away,archive,call,collapse,dm,dnd,expand,feed,giphy,invite,join,kick,leave,me,msg,mute,open,prefs,remind,remove,rename,search,shortcuts,shrug,star,status,topic,who,apps,help'.split(
    ',',
  ),
);

/** The workspace refuses code channels (or the app is no agent): the scope is missing. */
function requireCodeChannels(ctx: ApiContext): void {
  if (ctx.workspace.codeChannels.mode === 'off' || ctx.workspace.agent.features === 'off')
    throw new SlackApiError('missing_scope', { needed: SCOPE, provided: 'chat:write,assistant:write' });
}

/** The code channel a call names: `channel_not_found` for no channel, `not_agent_channel` for another kind. */
export function codeChannelOf(ctx: ApiContext, id: string): CodeChannelRecord {
  if (!ctx.workspace.channelForBot(id)) throw new SlackApiError('channel_not_found');
  const record = ctx.workspace.codeChannels.get(id);
  if (!record) throw new SlackApiError('not_agent_channel');
  return record;
}

function open(ctx: ApiContext, args: Args, field: string): CodeChannelRecord {
  const record = codeChannelOf(ctx, required(args, field));
  if (record.archived) throw new SlackApiError('is_archived');
  return record;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string field of an object argument: absent, or a string within `max` characters. */
function text(obj: Record<string, unknown>, name: string, where: string, max: number, need = false) {
  const v = obj[name];
  if (v === undefined || v === null) {
    if (need) throw invalidArgument(`missing required field: ${where}.${name}`);
    return undefined;
  }
  if (typeof v !== 'string' || (need && v === ''))
    throw invalidArgument(`${where}.${name} must be a non-empty string`);
  if (v.length > max) throw invalidArgument(`${where}.${name} must be at most ${max} characters`);
  return v;
}

function url(obj: Record<string, unknown>, name: string, where: string): string | undefined {
  const v = text(obj, name, where, 2048);
  if (v !== undefined && !/^https?:\/\//.test(v))
    throw invalidArgument(`${where}.${name} must be an http or https URL`);
  return v;
}

function boolean(args: Args, name: string): boolean | undefined {
  const v = args[name];
  if (v === undefined || v === '') return undefined;
  if (v === true || v === 'true' || v === '1') return true;
  if (v === false || v === 'false' || v === '0') return false;
  throw invalidArgument(`${name} must be true or false`);
}

function contextBar(value: unknown): ContextBarItem[] {
  if (!Array.isArray(value)) throw invalidArgument('code_channel.context_bar_items must be an array');
  if (value.length > MAX_CONTEXT_ITEMS)
    throw invalidArgument(
      `code_channel.context_bar_items must have at most ${MAX_CONTEXT_ITEMS} items, got ${value.length}`,
    );
  const keys = new Set<string>();
  return value.map((item, i) => {
    const where = `code_channel.context_bar_items[${i}]`;
    if (!isObj(item)) throw invalidArgument(`${where} must be an object`);
    const key = text(item, 'key', where, 64, true) as string;
    if (keys.has(key)) throw invalidArgument(`${where}.key "${key}" is used twice`);
    keys.add(key);
    const label = text(item, 'label', where, 128, true) as string;
    const icon = text(item, 'icon', where, 32);
    if (icon !== undefined && !(CONTEXT_BAR_ICONS as readonly string[]).includes(icon))
      throw invalidArgument(`${where}.icon must be one of ${CONTEXT_BAR_ICONS.join(', ')}`);
    const link = url(item, 'url', where);
    const type = item.item_type ?? 'info';
    if (type !== 'info' && type !== 'action')
      throw invalidArgument(`${where}.item_type must be info or action`);
    return {
      key,
      label,
      ...(icon ? { icon } : {}),
      ...(link ? { url: link } : {}),
      item_type: type,
    };
  });
}

function summaryMessage(ctx: ApiContext, record: CodeChannelRecord, value: unknown) {
  if (!isObj(value)) throw invalidArgument('code_channel.summary_message must be an object');
  const ts = text(value, 'message_ts', 'code_channel.summary_message', 32, true) as string;
  const threadTs = text(value, 'thread_ts', 'code_channel.summary_message', 32);
  if (!ctx.workspace.findMessage(record.channelId, ts)) throw new SlackApiError('message_not_found');
  return { message_ts: ts, ...(threadTs ? { thread_ts: threadTs } : {}) };
}

function agentResource(value: unknown): Record<string, string> {
  if (!isObj(value)) throw invalidArgument('agent_resource must be an object');
  const out: Record<string, string> = {};
  const link = url(value, 'url', 'agent_resource');
  if (link) out.url = link;
  for (const [name, max] of [
    ['resource_type', 64],
    ['title', 255],
    ['provider', 64],
  ] as const) {
    const v = text(value, name, 'agent_resource', max);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

function commands(value: unknown): ChannelCommand[] {
  if (value === undefined) throw invalidArgument('missing required field: commands');
  if (!Array.isArray(value)) throw invalidArgument('commands must be an array');
  if (value.length > MAX_COMMANDS)
    throw invalidArgument(`commands must have at most ${MAX_COMMANDS} items, got ${value.length}`);
  const names = new Set<string>();
  return value.map((c, i) => {
    const where = `commands[${i}]`;
    if (!isObj(c)) throw invalidArgument(`${where} must be an object`);
    const name = text(c, 'name', where, 31, true) as string;
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name))
      throw invalidArgument(
        `${where}.name must be lower-case letters, digits, - or _, without a leading slash`,
      );
    if (BUILT_IN_COMMANDS.has(name))
      throw invalidArgument(`${where}.name "${name}" collides with Slack's built-in /${name}`);
    if (names.has(name)) throw invalidArgument(`${where}.name "${name}" is used twice`);
    names.add(name);
    const description = text(c, 'description', where, 100);
    const hint = text(c, 'argument_hint', where, 100);
    if (c.should_escape !== undefined && typeof c.should_escape !== 'boolean')
      throw invalidArgument(`${where}.should_escape must be true or false`);
    return {
      name,
      ...(description ? { description } : {}),
      ...(hint ? { argument_hint: hint } : {}),
      ...(typeof c.should_escape === 'boolean' ? { should_escape: c.should_escape } : {}),
    };
  });
}

/** One view's fields, checked for its type. */
function viewOf(ctx: ApiContext, args: Args) {
  const type = (str(args, 'type') ?? 'html') as ViewType;
  if (!(VIEW_TYPES as readonly string[]).includes(type))
    throw invalidArgument(`type must be one of ${VIEW_TYPES.join(', ')}`);
  const viewKey = str(args, 'view_key');
  if (!viewKey && (type === 'html' || type === 'block_kit' || type === 'canvas'))
    throw invalidArgument(`view_key is required for a ${type} view`);
  const content = str(args, 'content');
  if (type === 'html' || type === 'diff') {
    if (content === undefined) throw invalidArgument(`content is required for a ${type} view`);
    if (Buffer.byteLength(content) > MAX_CONTENT_BYTES) throw new SlackApiError('content_too_large');
  }
  let blocks: unknown[] | undefined;
  if (type === 'block_kit') {
    const given = json(args, 'blocks');
    if (given === undefined) throw invalidArgument('blocks is required for a block_kit view');
    const problems = validateBlocks(given, 'message');
    if (problems.length > 0)
      throw new SlackApiError('invalid_blocks', {
        response_metadata: { messages: problems.map((p) => `[ERROR] ${describeProblem(p)}`) },
      });
    blocks = given as unknown[];
  }
  const canvasId = type === 'canvas' ? required(args, 'canvas_id') : undefined;
  if (canvasId && !ctx.workspace.codeChannels.canvases.has(canvasId))
    throw new SlackApiError('canvas_not_found');
  const prUrl = type === 'pull_request' ? required(args, 'pr_url') : undefined;
  const label =
    str(args, 'name') ??
    (viewKey ?? type)
      .split('/')
      .pop()
      ?.replace(/\.html?$/, '') ??
    type;
  return {
    type,
    ...(type !== 'diff' && viewKey ? { view_key: viewKey } : {}),
    label,
    ...(content !== undefined && (type === 'html' || type === 'diff') ? { content } : {}),
    ...(blocks ? { blocks } : {}),
    ...(canvasId ? { canvas_id: canvasId } : {}),
    ...(prUrl ? { pr_url: prUrl } : {}),
  };
}

/**
 * A channel name as Slack's conversations.create takes one (docs.slack.dev/reference/methods/
 * conversations.create, "Naming"): lowercase letters, digits, hyphens and underscores, at most 80.
 */
function checkChannelName(name: string): void {
  if (name.length > 80)
    throw new SlackApiError('invalid_name_maxlength', {
      detail: `name must be at most 80 characters, got ${name.length}`,
    });
  if (!/^[a-z0-9_-]+$/.test(name))
    throw new SlackApiError('invalid_name_specials', {
      detail: 'name may only hold lowercase letters, digits, hyphens and underscores',
    });
}

export const codeChannels: Record<string, Method> = {
  'agents.conversations.create': (args, ctx) => {
    requireCodeChannels(ctx);
    const { workspace } = ctx;
    const originChannel = str(args, 'origin_channel_id');
    const originTs = str(args, 'origin_message_ts');
    if ((originChannel === undefined) !== (originTs === undefined))
      throw invalidArgument('origin_channel_id and origin_message_ts must be given together');
    let origin: { channel_id: string; ts: string; author?: string } | undefined;
    let originPrivate = false;
    if (originChannel && originTs) {
      const channel = workspace.channelForBot(originChannel);
      if (!channel) throw new SlackApiError('channel_not_found');
      if (channel.is_ext_shared)
        throw invalidArgument('origin_channel_id must not be a Slack Connect (externally shared) channel');
      const message = workspace.findMessage(channel.id, originTs);
      if (!message) throw new SlackApiError('message_not_found');
      originPrivate = channel.is_private;
      // The origin message's author is invited (the bot, when the origin is a card it posted).
      const author = message.user;
      origin = { channel_id: channel.id, ts: originTs, ...(author ? { author } : {}) };
    }
    const name = str(args, 'name');
    if (!name && !origin) throw invalidArgument('missing required field: name');
    if (name) checkChannelName(name);
    const originText = origin ? (workspace.findMessage(origin.channel_id, origin.ts)?.text ?? '') : '';
    const sessionId = str(args, 'session_id');
    const { record, created } = workspace.codeChannels.create({
      name: name ?? (originText.slice(0, 80) || 'agent session'),
      ...(sessionId ? { sessionId } : {}),
      isPrivate: boolean(args, 'is_private') ?? originPrivate,
      ...(origin ? { origin } : {}),
    });
    return { ok: true, channel_id: record.channelId, ...(created ? {} : { already_exists: true }) };
  },
  'agents.conversations.setProperties': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = open(ctx, args, 'channel_id');
    const code = args.code_channel === undefined ? undefined : json(args, 'code_channel');
    const resource = args.agent_resource === undefined ? undefined : json(args, 'agent_resource');
    if (code === undefined && resource === undefined)
      throw invalidArgument('give code_channel or agent_resource');
    if (code !== undefined && !isObj(code)) throw invalidArgument('code_channel must be an object');
    const changes: Parameters<typeof ctx.workspace.codeChannels.setProperties>[1] = {};
    if (isObj(code) && code.context_bar_items !== undefined)
      changes.contextBar = contextBar(code.context_bar_items);
    if (isObj(code) && code.summary_message !== undefined)
      changes.summaryMessage = summaryMessage(ctx, record, code.summary_message);
    if (resource !== undefined) changes.agentResource = agentResource(resource);
    ctx.workspace.codeChannels.setProperties(record, changes);
    return { ok: true, channel_id: record.channelId };
  },
  'agents.conversations.setView': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = open(ctx, args, 'channel_id');
    const view = viewOf(ctx, args);
    const replaces = record.views.some((v) =>
      view.type === 'diff' ? v.type === 'diff' : v.view_key === view.view_key,
    );
    if (!replaces && record.views.length >= MAX_VIEWS)
      throw new SlackApiError('too_many_views', { max: MAX_VIEWS });
    const { view: saved } = ctx.workspace.codeChannels.setView(record, view);
    return {
      ok: true,
      channel_id: record.channelId,
      view_id: saved.view_id,
      type: saved.type,
      content_version: saved.content_version,
      ...(saved.canvas_id ? { canvas_id: saved.canvas_id } : {}),
    };
  },
  'agents.conversations.listViews': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = codeChannelOf(ctx, required(args, 'channel_id'));
    return {
      ok: true,
      views: record.views.map(({ view_id, view_key, label, content_version }) => ({
        view_id,
        ...(view_key ? { view_key } : {}),
        label,
        content_version,
      })),
    };
  },
  'agents.conversations.removeView': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = open(ctx, args, 'channel_id');
    const key = str(args, 'view_key');
    const id = str(args, 'view_id');
    if ((key === undefined) === (id === undefined))
      throw invalidArgument('give exactly one of view_key or view_id');
    const index = record.views.findIndex((v) => (key ? v.view_key === key : v.view_id === id));
    const view = record.views[index];
    if (!view) throw new SlackApiError('view_not_found');
    record.views.splice(index, 1);
    ctx.workspace.codeChannels.setProperties(record, {});
    return { ok: true, channel_id: record.channelId, view_id: view.view_id };
  },
  'agents.conversations.setCommands': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = open(ctx, args, 'channel_id');
    const list = commands(json(args, 'commands'));
    ctx.workspace.codeChannels.setCommands(record, list);
    return { ok: true, channel_id: record.channelId, command_count: list.length };
  },
  'agents.conversations.setCanvasContent': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = open(ctx, args, 'channel');
    const canvasId = required(args, 'canvas_id');
    const canvas = ctx.workspace.codeChannels.canvases.get(canvasId);
    if (!canvas || !record.views.some((v) => v.canvas_id === canvasId))
      throw new SlackApiError('canvas_not_found');
    if (typeof args.content !== 'string') throw invalidArgument('missing required field: content');
    ctx.workspace.codeChannels.setCanvasContent(canvas, args.content);
    return { ok: true, canvas_id: canvas.id };
  },
  'agents.conversations.archive': (args, ctx) => {
    requireCodeChannels(ctx);
    const record = codeChannelOf(ctx, required(args, 'channel_id'));
    if (record.archived) throw new SlackApiError('already_archived');
    ctx.workspace.codeChannels.archive(record, str(args, 'summary_message_ts'));
    return { ok: true };
  },
  'conversations.invite': (args, ctx) => {
    const { workspace } = ctx;
    const channel = workspace.channelForBot(required(args, 'channel'));
    if (!channel || channel.is_im) throw new SlackApiError('channel_not_found');
    if (!channel.is_member) throw new SlackApiError('not_in_channel');
    if (channel.is_archived) throw new SlackApiError('is_archived');
    const users = required(args, 'users')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    if (users.includes(workspace.seed.botUserId)) throw new SlackApiError('cant_invite_self');
    const members = workspace.members(channel.id) ?? [];
    for (const user of users) if (!workspace.users.has(user)) throw new SlackApiError('user_not_found');
    if (users.every((u) => members.includes(u))) throw new SlackApiError('already_in_channel');
    for (const user of users) workspace.join(channel.id, user, workspace.seed.botUserId);
    return { ok: true, channel: { id: channel.id, name: channel.name } };
  },
  'canvases.create': (args, ctx) => {
    const document = args.document_content === undefined ? undefined : json(args, 'document_content');
    if (document !== undefined && (!isObj(document) || document.type !== 'markdown'))
      throw invalidArgument('document_content must be {type: "markdown", markdown}');
    const markdown = isObj(document) && typeof document.markdown === 'string' ? document.markdown : '';
    const canvas = ctx.workspace.codeChannels.createCanvas(str(args, 'title') ?? 'Untitled', markdown);
    return { ok: true, canvas_id: canvas.id };
  },
};
