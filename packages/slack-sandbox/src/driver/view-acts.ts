/**
 * What a person does inside a view — the app's Home tab or a modal — as Slack sends it to the bot: a press
 * of a button (or a change of a select) there is a `block_actions` payload whose container is the view
 * (`container.type: "view"`, the whole view with its `state`, no channel, no message, no response_url);
 * a modal is submitted (`view_submission`) or closed (`view_closed`). The driver's methods and the page's
 * routes both come here, so there is one builder of each payload.
 */

import type { Interactions } from '../interactions.js';
import type { SandboxView, Workspace, WorkspaceSeed } from '../workspace.js';
import type { BotResponse, SendOptions } from './bot-line.js';
import {
  actionOf,
  type Draft,
  type ElementRef,
  elementsOf,
  type Obj,
  viewStateValues,
} from './element-state.js';
import {
  enterpriseOf,
  type PersonRef,
  teamOf,
  VERIFICATION_TOKEN,
  viewClosedPayload,
  viewSubmissionPayload,
} from './payloads.js';
import { viewFunctionDataOf } from './workflow-acts.js';

/** What a person typed or chose in a view: `values[blockId][actionId]`, text or option value(s). */
export type ViewValues = Record<string, Record<string, string | string[] | undefined>>;

/** What acting in a view needs of the driver: the workspace, triggers, who is who, the line to the bot. */
export interface ViewActDeps {
  workspace: Workspace;
  interactions: Interactions;
  user(id: string): PersonRef;
  send(payload: Obj, options: SendOptions): Promise<BotResponse>;
}

/** Elements pressed rather than set: Slack keeps no state for them in `state.values`. */
const PRESS_ONLY = new Set(['button', 'icon_button', 'feedback_buttons', 'overflow', 'workflow_button']);

/**
 * A view's `state.values` as Slack sends it: every stateful element (inputs, selects, checkboxes…) with
 * what the person typed or chose, none for buttons. A value for an element the view lacks is refused.
 */
export function viewState(blocks: unknown, given: ViewValues = {}): Draft {
  const values = viewStateValues(blocks, given);
  for (const [blockId, byAction] of Object.entries(values)) {
    for (const [actionId, state] of Object.entries(byAction))
      if (PRESS_ONLY.has(String(state.type))) delete byAction[actionId];
    if (Object.keys(byAction).length === 0) delete values[blockId];
  }
  return values;
}

/** A view as a payload carries it: the sandbox's bookkeeping (whose it is, closed) left out, its state in. */
export function viewAsSent(view: SandboxView, values: Draft): Obj {
  const { user: _user, closed: _closed, ...slack } = view;
  return { ...slack, state: { values } };
}

/** A `block_actions` payload for an action inside a view (the Home tab, a modal). */
export function viewBlockActionsPayload(input: {
  seed: WorkspaceSeed;
  user: PersonRef;
  /** The view as sent (see `viewAsSent`). */
  view: Obj;
  triggerId: string;
  action: Obj;
}): Obj {
  const { seed, view } = input;
  return {
    type: 'block_actions',
    user: input.user,
    api_app_id: seed.appId,
    token: VERIFICATION_TOKEN,
    container: { type: 'view', view_id: view.id },
    trigger_id: input.triggerId,
    team: teamOf(seed),
    enterprise: enterpriseOf(seed),
    is_enterprise_install: false,
    view,
    actions: [input.action],
  };
}

function viewOf(workspace: Workspace, viewId: string): SandboxView {
  const view = workspace.views.get(viewId);
  if (!view) throw new Error(`sandbox driver: no view ${viewId}`);
  return view;
}

/** The newest open modal of a user. */
export function openModal(workspace: Workspace, user: string): SandboxView | undefined {
  return [...workspace.views.values()]
    .reverse()
    .find((v) => v.user === user && v.type === 'modal' && !v.closed);
}

export interface ViewActInput {
  user: string;
  viewId: string;
  actionId: string;
  /** When several blocks hold the same action_id (inputs often do): which one. */
  blockId?: string;
  /** A select's or radio buttons' choice, checkboxes' picks; a feedback button's value. */
  value?: string | string[];
  /** What is typed or chosen elsewhere in the view (a modal's inputs), sent in its `state`. */
  values?: ViewValues;
}

/**
 * Presses a button, or changes a select / checkboxes / radio buttons, in a Home tab or an open modal. The
 * driver sends what it is told (a test may press in someone else's view, as a crafted payload would).
 */
export async function actInView(
  deps: ViewActDeps,
  input: ViewActInput,
  options: SendOptions = {},
): Promise<BotResponse & { triggerId: string }> {
  const view = viewOf(deps.workspace, input.viewId);
  if (view.closed) throw new Error(`sandbox driver: view ${view.id} is closed`);
  const ref = elementsOf(view.blocks).find(
    (r: ElementRef) =>
      r.element.action_id === input.actionId && (input.blockId === undefined || r.blockId === input.blockId),
  );
  if (!ref)
    throw new Error(`sandbox driver: view ${view.id} has no element with action_id ${input.actionId}`);
  const given: ViewValues = { ...input.values };
  if (input.value !== undefined && !PRESS_ONLY.has(String(ref.element.type)))
    given[ref.blockId] = { ...given[ref.blockId], [input.actionId]: input.value };
  const user = deps.user(input.user);
  const triggerId = deps.interactions.issueTrigger(user.id);
  const payload = viewBlockActionsPayload({
    seed: deps.workspace.seed,
    user,
    view: viewAsSent(view, viewState(view.blocks, given)),
    triggerId,
    action: actionOf(ref, input.value),
  });
  return { ...(await deps.send(payload, options)), triggerId };
}

/**
 * Submits a modal with what the person typed or chose. Returns the bot's answer (e.g. inline errors);
 * Slack closes the modal unless that answer holds errors or a new view.
 */
export async function submitView(
  deps: ViewActDeps,
  input: { user: string; viewId: string; values: ViewValues },
  options: SendOptions = {},
): Promise<BotResponse> {
  const view = viewOf(deps.workspace, input.viewId);
  const payload = {
    ...viewSubmissionPayload({
      seed: deps.workspace.seed,
      user: deps.user(input.user),
      triggerId: deps.interactions.issueTrigger(input.user),
      view: viewAsSent(view, viewState(view.blocks, input.values)),
    }),
    ...viewFunctionDataOf(deps.workspace, view.id),
  };
  const response = await deps.send(payload, options);
  const answer = response.body as Obj | undefined;
  if (response.status === 200 && !(answer && typeof answer === 'object' && 'response_action' in answer)) {
    deps.workspace.saveView({ ...view, closed: true });
  }
  return response;
}

/**
 * Closes a modal: it is gone from the person's screen. The bot is told (`view_closed`) only when its view
 * asked to be (`notify_on_close: true`), as Slack tells it; otherwise nothing is sent (undefined).
 */
export async function closeView(
  deps: ViewActDeps,
  input: { user: string; viewId: string },
  options: SendOptions = {},
): Promise<BotResponse | undefined> {
  const view = viewOf(deps.workspace, input.viewId);
  deps.workspace.saveView({ ...view, closed: true });
  if (view.notify_on_close !== true) return undefined;
  return deps.send(
    {
      ...viewClosedPayload({
        seed: deps.workspace.seed,
        user: deps.user(input.user),
        view: viewAsSent(view, {}),
      }),
      ...viewFunctionDataOf(deps.workspace, view.id),
    },
    options,
  );
}
