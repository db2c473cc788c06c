/**
 * Workflow Builder as the driver plays it: a person runs a workflow whose step is the app's custom step
 * (Slack sends `function_executed`, with the execution's id and a token for it), and a click on a
 * message the app posted with that token carries the execution (`function_data`, `bot_access_token`).
 */

import type { FunctionParameters } from '../workflows/definitions.js';
import type { StepExecution } from '../workflows/state.js';
import type { Workspace } from '../workspace.js';
import type { Delivery } from './bot-line.js';
import type { Obj } from './element-state.js';

type Deliver = (event: Obj) => Promise<{ eventId: string; deliveries: Delivery[] }>;

export interface StepRun {
  execution: StepExecution;
  /** The token Slack gave the app for this execution. */
  token: string;
  eventId: string;
  deliveries: Delivery[];
}

/** Parameters as the event lists them: one entry each, with its name and whether it is required. */
const listed = (params: FunctionParameters) =>
  Object.entries(params.properties).map(([name, p]) => ({
    name,
    type: p.type,
    ...(p.title ? { title: p.title } : {}),
    ...(p.description ? { description: p.description } : {}),
    is_required: (params.required ?? []).includes(name),
  }));

/**
 * A workflow reaches the app's step: the execution starts and `function_executed` goes to the app. With
 * `user`, a person ran the workflow (Slack names them in the step's interactivity inputs); without, it ran
 * on its own (a schedule, an event).
 */
export async function runStep(
  workspace: Workspace,
  deliver: Deliver,
  input: { callbackId: string; inputs: Record<string, unknown>; user?: string; next?: { channel: string } },
  pointerFor?: (user: string, executionId: string) => string,
): Promise<StepRun> {
  if (input.user !== undefined && !workspace.users.has(input.user))
    throw new Error(`sandbox driver: no user ${input.user}`);
  const { token, ...execution } = workspace.workflows.start({
    ...input,
    ...(pointerFor ? { pointerFor } : {}),
  });
  const definition = workspace.workflows.definitions[input.callbackId];
  const created = Math.floor(Date.now() / 1000);
  const event: Obj = {
    type: 'function_executed',
    function: {
      id: `Fn${workspace.seed.appId.slice(1)}${input.callbackId.length}`,
      callback_id: input.callbackId,
      title: definition?.title ?? input.callbackId,
      ...(definition?.description ? { description: definition.description } : {}),
      type: 'app',
      input_parameters: definition ? listed(definition.input_parameters) : [],
      output_parameters: definition ? listed(definition.output_parameters) : [],
      app_id: workspace.seed.appId,
      date_created: created,
      date_updated: created,
      date_deleted: 0,
    },
    inputs: execution.inputs,
    function_execution_id: execution.id,
    workflow_execution_id: execution.workflowExecutionId,
    event_ts: workspace.nextTs(),
    bot_access_token: token,
  };
  return { execution, token, ...(await deliver(event)) };
}

type RunningStep = NonNullable<ReturnType<Workspace['workflows']['postedUnder']>>;

/** The step's execution and its token, as Slack adds them to an interaction that happened under it. */
function functionData(execution: RunningStep | undefined): Obj {
  if (!execution) return {};
  return {
    function_data: {
      execution_id: execution.id,
      function: { callback_id: execution.callbackId },
      inputs: execution.inputs,
    },
    bot_access_token: execution.token,
  };
}

/** What a view's submission or closing carries when the app opened it with a running step's pointer. */
export const viewFunctionDataOf = (workspace: Workspace, viewId: string): Obj =>
  functionData(workspace.workflows.viewOpenedUnder(viewId));

/** What a click on `message` carries when the app posted it under a running step's token. */
export const functionDataOf = (workspace: Workspace, channel: string, ts: string): Obj =>
  functionData(workspace.workflows.postedUnder(channel, ts));
