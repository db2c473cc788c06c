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
import { type FunctionDefinitions, outputProblems } from './definitions.js';

export type ExecutionState = 'running' | 'completed' | 'failed';

/** One run of a custom step. */
export interface StepExecution {
  /** `Fx…`: the `function_execution_id`. */
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The person who ran the workflow. */
  user: string;
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

/** The token a step's execution gets (`bot_access_token`): valid for Web API calls until it completes. */
const executionToken = () => `xwfp-sandbox-${randomBytes(20).toString('hex')}`;

export class WorkflowRuns {
  #definitions: FunctionDefinitions = {};
  readonly executions = new Map<string, StepExecution>();
  readonly #tokens = new Map<string, string>();
  /** `channel|ts` of each message posted with an execution's token → that execution. */
  readonly #posted = new Map<string, string>();

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
    user: string;
    next?: { channel: string };
  }): StepExecution & { token: string } {
    const definition = this.#definitions[input.callbackId];
    if (!definition) throw new Error(`the app declares no step ${input.callbackId}`);
    const { properties, required = [] } = definition.input_parameters;
    for (const name of required) {
      const v = input.inputs[name];
      if (v === undefined || v === null || v === '') throw new Error(`${name} is required`);
    }
    for (const name of Object.keys(input.inputs))
      if (!(name in properties)) throw new Error(`${name} is not an input of ${input.callbackId}`);
    const execution: StepExecution = {
      id: `Fx${randomBytes(6).toString('hex').toUpperCase()}`,
      workflowExecutionId: `Wx${randomBytes(6).toString('hex').toUpperCase()}`,
      callbackId: input.callbackId,
      inputs: { ...input.inputs },
      user: input.user,
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
