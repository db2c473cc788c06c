import { randomBytes } from 'node:crypto';
import { describeProblem, validateView } from '../blockkit/validate.js';
import type { SandboxView } from '../workspace.js';
import { type ApiContext, type Args, json, type Method, required, SlackApiError, str } from './types.js';

function checkedView(args: Args): Record<string, unknown> {
  const view = json(args, 'view');
  const problems = validateView(view);
  if (problems.length > 0) {
    throw new SlackApiError('invalid_arguments', {
      response_metadata: { messages: problems.map((p) => `[ERROR] ${describeProblem(p)}`) },
    });
  }
  return view as Record<string, unknown>;
}

const hash = () => `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`;

function build(
  ctx: ApiContext,
  payload: Record<string, unknown>,
  user: string,
  previous: SandboxView | null,
): SandboxView {
  const id = `V${randomBytes(5).toString('hex').toUpperCase()}`;
  const { seed } = ctx.workspace;
  return {
    state: { values: {} },
    ...payload,
    id,
    team_id: seed.teamId,
    type: payload.type as 'modal' | 'home',
    user,
    hash: hash(),
    root_view_id: previous?.root_view_id ?? id,
    previous_view_id: previous?.id ?? null,
    closed: false,
    app_id: seed.appId,
    bot_id: seed.botId,
  };
}

/**
 * Who a view is opened for: the person a trigger_id was issued to, or the person who ran the workflow a
 * step's interactivity pointer came with (one of the two, never both), and that step's execution.
 */
function openerOf(args: Args, ctx: ApiContext): { user: string; executionId?: string } {
  const trigger = str(args, 'trigger_id');
  const pointer = str(args, 'interactivity_pointer');
  if (trigger && pointer)
    throw new SlackApiError('invalid_arguments', {
      response_metadata: {
        messages: ['[ERROR] trigger_id and interactivity_pointer are mutually exclusive'],
      },
    });
  if (pointer) return ctx.interactions.consumePointer(pointer);
  if (!trigger)
    throw new SlackApiError('invalid_arguments', {
      response_metadata: {
        messages: ['[ERROR] missing required field: trigger_id or interactivity_pointer'],
      },
    });
  return { user: ctx.interactions.consumeTrigger(trigger) };
}

export const views: Record<string, Method> = {
  'views.open': (args, ctx) => {
    const opener = openerOf(args, ctx);
    const view = ctx.workspace.saveView(build(ctx, checkedView(args), opener.user, null));
    if (opener.executionId) ctx.workspace.workflows.markViewOpened(view.id, opener.executionId);
    return { ok: true, view };
  },
  'views.push': (args, ctx) => {
    const user = ctx.interactions.consumeTrigger(required(args, 'trigger_id'));
    const top = [...ctx.workspace.views.values()]
      .reverse()
      .find((v) => v.user === user && v.type === 'modal' && !v.closed);
    if (!top) throw new SlackApiError('not_found');
    const view = ctx.workspace.saveView(build(ctx, checkedView(args), user, top));
    return { ok: true, view };
  },
  'views.update': (args, ctx) => {
    const id = str(args, 'view_id');
    const externalId = str(args, 'external_id');
    const existing = id
      ? ctx.workspace.views.get(id)
      : [...ctx.workspace.views.values()].find((v) => v.external_id === externalId);
    if (!existing) throw new SlackApiError('not_found');
    const expected = str(args, 'hash');
    if (expected && expected !== existing.hash) throw new SlackApiError('hash_conflict');
    const payload = checkedView(args);
    const updated: SandboxView = {
      ...existing,
      ...payload,
      id: existing.id,
      type: existing.type,
      hash: hash(),
    };
    ctx.workspace.saveView(updated);
    return { ok: true, view: updated };
  },
  'views.publish': (args, ctx) => {
    const user = required(args, 'user_id');
    if (!ctx.workspace.users.has(user)) throw new SlackApiError('user_not_found');
    const payload = checkedView(args);
    if (payload.type !== 'home') throw new SlackApiError('invalid_arguments');
    const existingId = ctx.workspace.homeViews.get(user);
    const existing = existingId ? ctx.workspace.views.get(existingId) : undefined;
    const expected = str(args, 'hash');
    if (existing && expected && expected !== existing.hash) throw new SlackApiError('hash_conflict');
    const view = existing
      ? { ...existing, ...payload, id: existing.id, hash: hash() }
      : build(ctx, payload, user, null);
    ctx.workspace.homeViews.set(user, view.id);
    ctx.workspace.saveView(view as SandboxView);
    return { ok: true, view };
  },
};
