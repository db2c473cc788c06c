/**
 * Workflows in the sandbox's workspace, as Workflow Builder runs them: a form's values go into the app's
 * custom step (a `function_executed` event with its execution id and a token for that execution), the
 * step completes through `functions.completeSuccess` / `completeError` (outputs checked against the
 * manifest), and the next step posts the outputs in a channel. Messages the app posts with the
 * execution's token carry the execution in the clicks on them (`function_data`, `bot_access_token`).
 */
import { randomBytes } from 'node:crypto';
import { SlackApiError } from '../api/types.js';
import type { Workspace } from '../workspace.js';
import { type FunctionDefinitions, type FunctionParameters, outputProblems } from './definitions.js';

export type ExecutionState = 'running' | 'completed' | 'failed';

/** One run of a custom step. */
export interface StepExecution {
  /** `Fx…`: the `function_execution_id`. */
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The person who ran the workflow; none for a run no person started (a schedule, an event). */
  user?: string;
  state: ExecutionState;
  outputs?: Record<string, unknown>;
  error?: string;
  /** Completions Slack accepted: one at most, whatever the app sends. */
  completions: number;
  /** Completions refused (a second one, or outputs that don't conform), by Slack's error. */
  refused: string[];
  /** The workflow's next step: a message with the outputs in this channel. */
  next?: { channel: string };
  /** The message that step posted. */
  posted?: { channel: string; ts: string };
}

const INTERACTIVITY = 'slack#/types/interactivity';

/**
 * What Workflow Builder puts in a step's `slack#/types/interactivity` inputs: who ran the workflow
 * (`interactor`, with a secret of Slack's) and a pointer to that interaction (`pointer`: issued by the
 * interactions, so `views.open` takes it once and soon), only when a person started the run (a link, a
 * button, a form). A run nobody started (a schedule, an event) has none to give.
 */
function interactivityOf(
  params: FunctionParameters,
  user: string | undefined,
  pointer: () => string,
): Record<string, unknown> {
  if (!user) return {};
  const names = Object.entries(params.properties).filter(([, p]) => p.type === INTERACTIVITY);
  return Object.fromEntries(
    names.map(([name]) => [
      name,
      {
        interactor: { id: user, secret: randomBytes(40).toString('base64url') },
        interactivity_pointer: pointer(),
      },
    ]),
  );
}

/** A pointer no interactions issued: what a run started without the driver carries (views.open refuses it). */
const unissuedPointer = () =>
  `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(16).toString('hex')}`;

/** The token a step's execution gets (`bot_access_token`): valid for Web API calls until it completes. */
const executionToken = () => `xwfp-sandbox-${randomBytes(20).toString('hex')}`;

export class WorkflowRuns {
  #definitions: FunctionDefinitions = {};
  readonly executions = new Map<string, StepExecution>();
  readonly #tokens = new Map<string, string>();
  /** `channel|ts` of each message posted with an execution's token → that execution. */
  readonly #posted = new Map<string, string>();
  /** Each view opened with an execution's interactivity pointer → that execution. */
  readonly #views = new Map<string, string>();

  constructor(private readonly workspace: Workspace) {}

  /** The app's custom steps (the manifest's `functions`). */
  define(definitions: FunctionDefinitions): void {
    this.#definitions = { ...definitions };
    this.#changed();
  }

  get definitions(): FunctionDefinitions {
    return this.#definitions;
  }

  /**
   * A workflow reaches the step: its execution, with inputs checked as Workflow Builder checks a form
   * (a required input left empty never runs). Throws naming the input and the rule.
   */
  start(input: {
    callbackId: string;
    inputs: Record<string, unknown>;
    user?: string;
    next?: { channel: string };
    /** Issues the run's interactivity pointer for `user` and the execution (the driver's interactions). */
    pointerFor?: (user: string, executionId: string) => string;
  }): StepExecution & { token: string } {
    const definition = this.#definitions[input.callbackId];
    if (!definition) throw new Error(`the app declares no step ${input.callbackId}`);
    const { properties } = definition.input_parameters;
    for (const name of Object.keys(input.inputs)) {
      if (!(name in properties)) throw new Error(`${name} is not an input of ${input.callbackId}`);
      if (properties[name]?.type === INTERACTIVITY)
        throw new Error(`${name} is set by Slack from who ran the workflow, not by the workflow's builder`);
    }
    const id = `Fx${randomBytes(6).toString('hex').toUpperCase()}`;
    const { pointerFor } = input;
    const pointer = () => (pointerFor && input.user ? pointerFor(input.user, id) : unissuedPointer());
    const inputs = {
      ...input.inputs,
      ...interactivityOf(definition.input_parameters, input.user, pointer),
    };
    for (const name of definition.input_parameters.required ?? []) {
      const v = inputs[name];
      if (v === undefined || v === null || v === '') throw new Error(`${name} is required`);
    }
    const execution: StepExecution = {
      id,
      workflowExecutionId: `Wx${randomBytes(6).toString('hex').toUpperCase()}`,
      callbackId: input.callbackId,
      inputs,
      ...(input.user ? { user: input.user } : {}),
      state: 'running',
      completions: 0,
      refused: [],
      ...(input.next ? { next: input.next } : {}),
    };
    const token = executionToken();
    this.executions.set(execution.id, execution);
    this.#tokens.set(token, execution.id);
    this.#changed();
    return { ...execution, token };
  }

  /** The running execution a token belongs to (a completed one's token no longer works). */
  byToken(token: string): StepExecution | undefined {
    const id = this.#tokens.get(token);
    const execution = id ? this.executions.get(id) : undefined;
    return execution?.state === 'running' ? execution : undefined;
  }

  tokenOf(executionId: string): string | undefined {
    for (const [token, id] of this.#tokens) if (id === executionId) return token;
    return undefined;
  }

  /** A message the app posted with an execution's token: clicks on it carry the execution. */
  markPosted(channel: string, ts: string, executionId: string): void {
    this.#posted.set(`${channel}|${ts}`, executionId);
  }

  /** The execution a message was posted under, while it runs: what its clicks carry. */
  postedUnder(channel: string, ts: string): (StepExecution & { token: string }) | undefined {
    const id = this.#posted.get(`${channel}|${ts}`);
    const execution = id ? this.executions.get(id) : undefined;
    const token = id ? this.tokenOf(id) : undefined;
    return execution?.state === 'running' && token ? { ...execution, token } : undefined;
  }

  /** A view the app opened with an execution's interactivity pointer: its submission carries the execution. */
  markViewOpened(viewId: string, executionId: string): void {
    this.#views.set(viewId, executionId);
  }

  /** The execution a view was opened under, while it runs: what its submission and closing carry. */
  viewOpenedUnder(viewId: string): (StepExecution & { token: string }) | undefined {
    const id = this.#views.get(viewId);
    const execution = id ? this.executions.get(id) : undefined;
    const token = id ? this.tokenOf(id) : undefined;
    return execution?.state === 'running' && token ? { ...execution, token } : undefined;
  }

  /** `functions.completeSuccess`: the outputs checked against the step's declaration. */
  completeSuccess(executionId: string, outputs: unknown): void {
    const execution = this.#running(executionId);
    const definition = this.#definitions[execution.callbackId];
    const problems = definition ? outputProblems(definition, outputs) : [];
    if (problems.length > 0) {
      execution.refused.push('parameter_validation_failed');
      this.#changed();
      throw new SlackApiError('parameter_validation_failed', {
        errors: problems,
        response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
      });
    }
    execution.state = 'completed';
    execution.outputs = { ...(outputs as Record<string, unknown>) };
    execution.completions += 1;
    this.#runNext(execution);
    this.#changed();
  }

  /** `functions.completeError`: the step failed, with a message Slack shows the person. */
  completeError(executionId: string, error: string): void {
    const execution = this.#running(executionId);
    execution.state = 'failed';
    execution.error = error;
    execution.completions += 1;
    this.#changed();
  }

  #running(executionId: string): StepExecution {
    const execution = this.executions.get(executionId);
    if (!execution) throw new SlackApiError('function_execution_not_found');
    if (execution.state !== 'running') {
      execution.refused.push('execution_not_in_running_state');
      this.#changed();
      throw new SlackApiError('execution_not_in_running_state');
    }
    return execution;
  }

  /** The workflow's next step, "Send a message": the outputs, posted by Workflow Builder. */
  #runNext(execution: StepExecution): void {
    if (!execution.next || !this.workspace.channel(execution.next.channel)) return;
    const outputs = execution.outputs ?? {};
    const lines = Object.entries(outputs).map(
      ([k, v]) => `*${k}*: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    const message = this.workspace.post({
      channel: this.workspace.channel(execution.next.channel)?.id ?? execution.next.channel,
      bot_id: 'BWORKFLOWS',
      text: `Workflow ${execution.workflowExecutionId}: step "${this.#definitions[execution.callbackId]?.title ?? execution.callbackId}" finished\n${lines.join('\n')}`,
    });
    execution.posted = { channel: message.channel, ts: message.ts };
  }

  /** What the page and `/sandbox/state` show. */
  snapshot(): { definitions: FunctionDefinitions; executions: StepExecution[] } {
    return { definitions: this.#definitions, executions: [...this.executions.values()] };
  }

  #changed(): void {
    this.workspace.emit('change', { kind: 'workflow' });
  }
}
