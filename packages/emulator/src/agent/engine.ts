import type { EmulatorClock } from '../clock.js';
import { badRequest, HttpError } from '../errors.js';
import type {
  Account,
  HumanInputAnswer,
  HumanInputRequest,
  Message,
  Round,
  RoundTrigger,
  Session,
  SessionStatus,
} from '../model.js';
import { TERMINAL } from '../model.js';
import type { Scheduler } from '../scheduler.js';
import { newId, type Store } from '../store.js';
import { validateAnswer } from './answers.js';
import { SCENARIO_NAMES, SCENARIOS, workSteps } from './scenarios.js';
import type { Step } from './steps.js';

export interface EngineOptions {
  humanInputShape: 'message' | 'tool_call';
}

export interface CreateInput {
  goal: string;
  context: Record<string, unknown> | null;
  guardrails: Record<string, unknown>;
  scenario: string;
}

export type SignalType = 'pause' | 'resume' | 'cancel' | 'redirect';

export interface SignalInput {
  type: SignalType;
  reason?: string;
  message?: string;
  newBudget?: number;
}

// Prices in USD per token, like a mid-size hosted model.
const PROMPT_PRICE = 3 / 1_000_000;
const COMPLETION_PRICE = 15 / 1_000_000;
const QUEUED_MS = 400;
const ORCHESTRATING_MS = 600;

/**
 * The scripted agent and the session state machine of spec §3. Every change goes through here so the
 * event log, updatedAt and the rounds stay consistent.
 */
export class Engine {
  /** What an agent does with an answer, per pending inputId (functions can't live in the records). */
  readonly #continuations = new Map<string, (answer: HumanInputAnswer) => Step[]>();

  constructor(
    readonly store: Store,
    readonly scheduler: Scheduler,
    readonly clock: EmulatorClock,
    readonly options: EngineOptions,
  ) {}

  create(account: Account, input: CreateInput): Session {
    const scenario = SCENARIOS[input.scenario];
    if (!scenario) {
      throw badRequest(`unknown scenario "${input.scenario}"; valid scenarios: ${SCENARIO_NAMES.join(', ')}`);
    }
    const now = this.clock.now();
    const maxCost = input.guardrails.maxCostPerSession;
    const maxIterations = input.guardrails.maxIterations;
    const session: Session = {
      sessionId: newId('sess'),
      accountId: account.accountId,
      goal: input.goal,
      context: input.context,
      guardrails: input.guardrails,
      maxCostPerSession: typeof maxCost === 'number' ? maxCost : (scenario.defaultMaxCost ?? null),
      maxIterations: typeof maxIterations === 'number' ? maxIterations : 50,
      scenario: input.scenario,
      status: 'queued',
      cost: { totalCost: 0, totalTokens: 0, promptTokens: 0, completionTokens: 0 },
      rounds: [],
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      error: null,
      completionReport: null,
      script: {
        steps: [...workSteps(input.context), ...scenario.steps(input.goal)],
        next: 0,
        timer: 0,
        repeats: 0,
      },
    };
    this.store.sessions.set(session.sessionId, session);
    this.#newRound(session, 'create');
    this.#setStatus(session, 'queued');
    const timer = session.script.timer;
    this.scheduler.after(QUEUED_MS, () => {
      if (session.script.timer !== timer || session.status !== 'queued') return;
      this.#setStatus(session, 'orchestrating');
      this.scheduler.after(ORCHESTRATING_MS, () => {
        if (session.script.timer !== timer || session.status !== 'orchestrating') return;
        this.#setStatus(session, 'running');
        this.#scheduleNext(session);
      });
    });
    return session;
  }

  signal(session: Session, input: SignalInput): { roundId?: string; message: string } {
    if (TERMINAL.has(session.status)) {
      throw badRequest(
        `session is ${session.status}: a ${input.type} signal can't apply to a finished session`,
      );
    }
    switch (input.type) {
      case 'pause':
        return this.#pause(session, input.reason);
      case 'resume':
        return this.#resume(session, input);
      case 'cancel':
        return this.#cancel(session, input.reason);
      case 'redirect':
        return this.#redirect(session, input.message ?? '');
    }
  }

  answer(session: Session, inputId: string, answer: HumanInputAnswer): { roundId?: string; message: string } {
    const round = session.rounds.find((r) => r.humanInput?.request.inputId === inputId);
    const pending = round?.humanInput;
    if (!round || !pending)
      throw new HttpError(404, `human-input request ${inputId} not found in this session`);
    if (pending.status === 'responded') {
      throw badRequest(
        `human-input request ${inputId} was already answered at ${new Date(pending.answeredAt ?? 0).toISOString()}`,
      );
    }
    if (pending.status === 'superseded' || session.status !== 'waiting_human') {
      throw badRequest(`human-input request ${inputId} is no longer pending (session is ${session.status})`);
    }
    validateAnswer(pending.request, answer);
    const now = this.clock.now();
    pending.status = 'responded';
    pending.answeredAt = now;
    pending.answer = answer;
    round.status = 'completed';
    round.completedAt = now;
    const then = this.#continuations.get(inputId);
    this.#continuations.delete(inputId);
    const steps = then ? then(answer) : [];
    session.script.steps.splice(session.script.next, 0, ...steps);
    const next = this.#newRound(session, 'human_input');
    this.#setStatus(session, 'running');
    this.#scheduleNext(session);
    return { roundId: next.roundId, message: 'Input recorded; the session resumes' };
  }

  #pause(session: Session, reason: string | undefined): { message: string } {
    if (session.status === 'paused') throw badRequest('session is already paused');
    if (session.status === 'cost_limit') {
      throw badRequest(
        'session is in cost_limit: resume it with a newBudget greater than its spend, or cancel it',
      );
    }
    if (session.status === 'waiting_human') {
      throw badRequest('session is waiting for human input: answer the request or cancel the session');
    }
    session.script.timer++;
    const round = this.#currentRound(session);
    round.status = 'paused';
    if (reason) round.note = `paused: ${reason}`;
    this.#setStatus(session, 'paused');
    return { message: reason ? `Session paused: ${reason}` : 'Session paused' };
  }

  #resume(session: Session, input: SignalInput): { roundId?: string; message: string } {
    if (session.status !== 'paused' && session.status !== 'cost_limit') {
      throw badRequest(`session is ${session.status}: only a paused or cost_limit session can be resumed`);
    }
    const spend = session.cost.totalCost;
    if (session.status === 'cost_limit' && input.newBudget === undefined) {
      throw badRequest(
        `newBudget is required to resume a session in cost_limit and must be greater than the current spend ($${spend.toFixed(4)})`,
      );
    }
    if (input.newBudget !== undefined) {
      if (input.newBudget <= spend) {
        throw badRequest(`newBudget must be greater than the current spend ($${spend.toFixed(4)})`);
      }
      session.maxCostPerSession = input.newBudget;
      session.guardrails = { ...session.guardrails, maxCostPerSession: input.newBudget };
    }
    const round = this.#newRound(session, 'resume');
    if (input.message) this.#append(session, round, { role: 'user', content: input.message });
    this.#setStatus(session, 'running');
    this.#scheduleNext(session);
    return { roundId: round.roundId, message: 'Session resumed' };
  }

  #cancel(session: Session, reason: string | undefined): { message: string } {
    session.script.timer++;
    const now = this.clock.now();
    for (const round of session.rounds) {
      if (round.completedAt === null) {
        round.status = 'cancelled';
        round.completedAt = now;
      }
      if (round.humanInput?.status === 'pending') round.humanInput.status = 'superseded';
    }
    if (reason) this.#currentRound(session).note = `cancelled: ${reason}`;
    session.completedAt = now;
    this.#setStatus(session, 'cancelled');
    return { message: reason ? `Session cancelled: ${reason}` : 'Session cancelled' };
  }

  #redirect(session: Session, message: string): { roundId: string; message: string } {
    if (session.status === 'cost_limit') {
      throw badRequest('session is in cost_limit: resume it with a newBudget first, then redirect');
    }
    session.script.timer++;
    const now = this.clock.now();
    const previous = this.#currentRound(session);
    if (previous.completedAt === null) {
      previous.status = 'superseded';
      previous.completedAt = now;
    }
    if (previous.humanInput?.status === 'pending') previous.humanInput.status = 'superseded';
    const round = this.#newRound(session, 'redirect');
    this.#append(session, round, { role: 'user', content: message });
    session.script.steps.splice(session.script.next, 0, {
      kind: 'say',
      delayMs: 1000,
      text: `Changing direction as asked: ${message}`,
    });
    this.#setStatus(session, 'running');
    this.#scheduleNext(session);
    return { roundId: round.roundId, message: 'Session redirected' };
  }

  #scheduleNext(session: Session): void {
    const step = session.script.steps[session.script.next];
    const timer = session.script.timer;
    this.scheduler.after(step?.delayMs ?? 500, () => {
      if (session.script.timer !== timer || session.status !== 'running') return;
      this.#runStep(session);
    });
  }

  #runStep(session: Session): void {
    const round = this.#currentRound(session);
    const step = session.script.steps[session.script.next];
    if (!step) {
      // A script that runs out of steps (e.g. after a redirect replaced a question) ends well.
      this.#finish(session, 'completed', { summary: `Completed: ${session.goal}` });
      return;
    }
    if ((step.kind === 'say' || step.kind === 'tool') && round.iterations >= session.maxIterations) {
      round.status = 'paused';
      round.completedAt = this.clock.now();
      round.note = `maxIterations (${session.maxIterations}) reached in this round`;
      this.#setStatus(session, 'paused');
      return;
    }
    session.script.next++;
    switch (step.kind) {
      case 'say':
        round.iterations++;
        this.#append(session, round, {
          role: 'assistant',
          content: step.text,
          ...(step.reasoning
            ? { reasoning: step.reasoning, reasoningDurationMs: 800 + step.reasoning.length }
            : {}),
        });
        this.#charge(session, step.tokens, step.text.length);
        break;
      case 'tool': {
        round.iterations++;
        const toolCallId = newId('call');
        this.#append(session, round, {
          role: 'assistant',
          content: '',
          toolCalls: [
            {
              id: toolCallId,
              type: 'function',
              function: { name: step.name, arguments: JSON.stringify(step.args) },
            },
          ],
        });
        this.#append(session, round, { role: 'tool', content: step.result, name: step.name, toolCallId });
        this.#charge(session, step.tokens, step.result.length + 100);
        break;
      }
      case 'ask':
        this.#ask(session, round, { inputId: newId('in'), ...step.request }, step.onAnswer);
        return;
      case 'complete':
        this.#finish(session, 'completed', {
          summary: step.summary,
          details: step.details ?? [],
        });
        return;
      case 'fail':
        this.#finish(session, 'error', undefined, step.error);
        return;
      case 'repeat': {
        const cycle = step.cycle(session.script.repeats++);
        session.script.steps.splice(session.script.next, 0, ...cycle, step);
        break;
      }
    }
    const max = session.maxCostPerSession;
    if (max !== null && session.cost.totalCost >= max) {
      round.status = 'cost_limit';
      round.completedAt = this.clock.now();
      this.#setStatus(session, 'cost_limit');
      return;
    }
    this.#scheduleNext(session);
  }

  #ask(
    session: Session,
    round: Round,
    request: HumanInputRequest,
    then: (a: HumanInputAnswer) => Step[],
  ): void {
    const content = JSON.stringify(request);
    if (this.options.humanInputShape === 'tool_call') {
      this.#append(session, round, {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: newId('call'),
            type: 'function',
            function: { name: 'human_input_needed', arguments: content },
          },
        ],
      });
    } else {
      this.#append(session, round, { role: 'assistant', name: 'human_input_needed', content });
    }
    const now = this.clock.now();
    round.humanInput = { request, roundId: round.roundId, status: 'pending', askedAt: now };
    round.status = 'waiting_human';
    round.completedAt = null;
    this.#continuations.set(request.inputId, then);
    this.store.record({
      virtualAt: now,
      sessionId: session.sessionId,
      type: 'human_input_needed',
      roundId: round.roundId,
      inputId: request.inputId,
    });
    this.#setStatus(session, 'waiting_human');
  }

  #finish(
    session: Session,
    status: 'completed' | 'error',
    report?: { summary: string; details?: string[] },
    error?: string,
  ): void {
    const now = this.clock.now();
    const round = this.#currentRound(session);
    round.status = status;
    round.completedAt = now;
    session.completedAt = now;
    session.error = error ?? null;
    session.completionReport = report
      ? {
          summary: report.summary,
          details: report.details ?? [],
          rounds: session.rounds.length,
          totalCost: Number(session.cost.totalCost.toFixed(6)),
        }
      : null;
    this.#setStatus(session, status);
    this.store.record({ virtualAt: now, sessionId: session.sessionId, type: 'finished', status });
  }

  #charge(session: Session, tokens: number | undefined, textLength: number): void {
    const total = tokens ?? 400 + Math.ceil(textLength / 4);
    const completion = Math.ceil(total * 0.2);
    const prompt = total - completion;
    const cost = session.cost;
    cost.promptTokens += prompt;
    cost.completionTokens += completion;
    cost.totalTokens += total;
    cost.totalCost = Number(
      (cost.totalCost + prompt * PROMPT_PRICE + completion * COMPLETION_PRICE).toFixed(6),
    );
  }

  #currentRound(session: Session): Round {
    const round = session.rounds[session.rounds.length - 1];
    if (!round) throw new Error(`session ${session.sessionId} has no round`);
    return round;
  }

  #newRound(session: Session, trigger: RoundTrigger): Round {
    const round: Round = {
      roundId: newId('round'),
      index: session.rounds.length,
      trigger,
      status: 'running',
      startedAt: this.clock.now(),
      completedAt: null,
      iterations: 0,
      messages: [],
    };
    session.rounds.push(round);
    session.updatedAt = this.clock.now();
    return round;
  }

  #append(session: Session, round: Round, message: Omit<Message, 'roundId' | 'timestamp'>): void {
    const now = this.clock.now();
    round.messages.push({ ...message, roundId: round.roundId, timestamp: now });
    session.updatedAt = now;
    this.store.record({
      virtualAt: now,
      sessionId: session.sessionId,
      type: 'message',
      roundId: round.roundId,
      position: round.messages.length - 1,
    });
  }

  #setStatus(session: Session, status: SessionStatus): void {
    const now = this.clock.now();
    session.status = status;
    session.updatedAt = now;
    this.store.record({ virtualAt: now, sessionId: session.sessionId, type: 'status', status });
  }
}
