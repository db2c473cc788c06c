import type { EmulatorClock } from '../clock.js';
import { badRequest, HttpError } from '../errors.js';
import type { Account, HumanInputAnswer, HumanInputRequest, Round, Session } from '../model.js';
import { TERMINAL } from '../model.js';
import type { Quirks } from '../quirks.js';
import type { Scheduler } from '../scheduler.js';
import { newId, type Store } from '../store.js';
import { validateAnswer } from './answers.js';
import { ELICITATION_MESSAGE, elicitationOf } from './elicitation.js';
import { SessionRecords } from './records.js';
import { SCENARIO_NAMES, SCENARIOS, workSteps } from './scenarios.js';
import type { Step } from './steps.js';
import { ASKED_BY_SUBAGENT, askerSteps, helperSteps, researcherSteps, type Subagent } from './subagents.js';

export interface EngineOptions {
  humanInputShape: 'message' | 'tool_call';
  /** Read at every step, so the admin endpoint can switch quirks on a running emulator. */
  quirks: Quirks;
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

const QUEUED_MS = 400;
const ORCHESTRATING_MS = 600;

/**
 * The scripted agent and the session state machine of spec §3. Every change goes through here so the
 * event log, updatedAt and the rounds stay consistent.
 */
export class Engine {
  /** What an agent does with an answer, per pending inputId (functions can't live in the records). */
  readonly #continuations = new Map<string, (answer: HumanInputAnswer) => Step[]>();
  /** Open subagents by roundId (`concurrent-rounds`). */
  readonly #subagents = new Map<string, Subagent>();
  readonly #records: SessionRecords;

  constructor(
    readonly store: Store,
    readonly scheduler: Scheduler,
    readonly clock: EmulatorClock,
    readonly options: EngineOptions,
  ) {
    this.#records = new SessionRecords(store, clock, options.quirks);
  }

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
      messageSeq: 0,
      mainRoundId: '',
      statusSince: now,
      script: {
        steps: [...workSteps(input.context), ...scenario.steps(input.goal)],
        next: 0,
        timer: 0,
        repeats: 0,
      },
    };
    this.store.sessions.set(session.sessionId, session);
    this.#records.newRound(session, 'create');
    this.#records.setStatus(session, 'queued');
    const timer = session.script.timer;
    this.scheduler.after(QUEUED_MS, () => {
      if (session.script.timer !== timer || session.status !== 'queued') return;
      this.#records.setStatus(session, 'orchestrating');
      this.scheduler.after(ORCHESTRATING_MS, () => {
        if (session.script.timer !== timer || session.status !== 'orchestrating') return;
        this.#records.setStatus(session, 'running');
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
    if (round.trigger === 'subagent') {
      // The asking subagent (older than the helper beside it) says one more thing.
      this.#records.append(session, round, {
        role: 'assistant',
        content: 'Subagent: got the answer, handing back to the main agent.',
      });
    }
    round.status = 'completed';
    round.completedAt = now;
    const main = this.#records.mainRound(session);
    if (main.completedAt === null) {
      main.status = 'completed';
      main.completedAt = now;
    }
    // The main agent stops its helpers once it has the answer: every round before the new one is done,
    // so the stream before it is settled (and `hidden-entries` pages can end right there).
    this.#closeSubagents(session, 'completed');
    const then = this.#continuations.get(inputId);
    this.#continuations.delete(inputId);
    const steps = then ? then(answer) : [];
    session.script.steps.splice(session.script.next, 0, ...steps);
    const next = this.#records.newRound(session, 'human_input');
    this.#records.setStatus(session, 'running');
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
    const round = this.#records.mainRound(session);
    round.status = 'paused';
    if (reason) round.note = `paused: ${reason}`;
    this.#closeSubagents(session, 'cancelled');
    this.#records.setStatus(session, 'paused');
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
    const round = this.#records.newRound(session, 'resume');
    if (input.message) this.#records.append(session, round, { role: 'user', content: input.message });
    this.#records.setStatus(session, 'running');
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
    for (const round of session.rounds) this.#subagents.delete(round.roundId);
    if (reason) this.#records.mainRound(session).note = `cancelled: ${reason}`;
    session.completedAt = now;
    this.#records.setStatus(session, 'cancelled');
    return { message: reason ? `Session cancelled: ${reason}` : 'Session cancelled' };
  }

  #redirect(session: Session, message: string): { roundId: string; message: string } {
    if (session.status === 'cost_limit') {
      throw badRequest('session is in cost_limit: resume it with a newBudget first, then redirect');
    }
    session.script.timer++;
    const now = this.clock.now();
    const previous = this.#records.mainRound(session);
    if (previous.completedAt === null) {
      previous.status = 'superseded';
      previous.completedAt = now;
    }
    if (previous.humanInput?.status === 'pending') previous.humanInput.status = 'superseded';
    // Subagents (and a question one of them asked) are superseded with the line they worked for.
    for (const r of this.#records.openSubagents(session)) {
      if (r.humanInput?.status === 'pending') r.humanInput.status = 'superseded';
    }
    this.#closeSubagents(session, 'superseded');
    const round = this.#records.newRound(session, 'redirect');
    this.#records.append(session, round, { role: 'user', content: message });
    session.script.steps.splice(session.script.next, 0, {
      kind: 'say',
      delayMs: 1000,
      text: `Changing direction as asked: ${message}`,
    });
    this.#records.setStatus(session, 'running');
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
    const round = this.#records.mainRound(session);
    const step = session.script.steps[session.script.next];
    if (!step) {
      // A script that runs out of steps (e.g. after a redirect replaced a question) ends well.
      this.#finish(session, 'completed', { summary: `Completed: ${session.goal}` });
      return;
    }
    if ((step.kind === 'say' || step.kind === 'tool') && round.iterations >= session.maxIterations) {
      this.#stopShort(
        session,
        round,
        'paused',
        `maxIterations (${session.maxIterations}) reached in this round`,
      );
      return;
    }
    if ((step.kind === 'say' || step.kind === 'tool') && this.options.quirks.concurrentRounds) {
      this.#spawnResearcher(session, round);
    }
    session.script.next++;
    switch (step.kind) {
      case 'say':
      case 'tool':
        this.#work(session, round, step);
        break;
      case 'ask':
        if (this.options.quirks.concurrentRounds) {
          this.#askBesideSubagents(session, round, step);
          return;
        }
        this.#ask(session, round, { inputId: newId('in'), ...step.request }, step);
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
      this.#stopShort(session, round, 'cost_limit');
      return;
    }
    this.#scheduleNext(session);
  }

  /** The main line stops at a guardrail (maxIterations, the budget): its round ends, subagents are cancelled. */
  #stopShort(session: Session, round: Round, status: 'paused' | 'cost_limit', note?: string): void {
    round.status = status;
    round.completedAt = this.clock.now();
    if (note) round.note = note;
    this.#closeSubagents(session, 'cancelled');
    this.#records.setStatus(session, status);
  }

  /** A `say` or `tool` step: one iteration of the round's agent, with its messages and cost. */
  #work(session: Session, round: Round, step: Step & { kind: 'say' | 'tool' }): void {
    round.iterations++;
    if (step.kind === 'say') {
      this.#records.append(session, round, {
        role: 'assistant',
        content: step.text,
        ...(step.reasoning
          ? { reasoning: step.reasoning, reasoningDurationMs: 800 + step.reasoning.length }
          : {}),
      });
      this.#records.charge(session, step.tokens, step.text.length);
      return;
    }
    const toolCallId = newId('call');
    this.#records.append(session, round, {
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
    this.#records.append(session, round, { role: 'tool', content: step.result, name: step.name, toolCallId });
    if (this.options.quirks.hiddenEntries) {
      this.#records.append(session, round, {
        role: 'system',
        content: 'internal: tool usage recorded',
        hidden: true,
      });
    }
    this.#records.charge(session, step.tokens, step.result.length + 100);
  }

  /** `concurrent-rounds`: the main round's first piece of work opens a researcher subagent beside it. */
  #spawnResearcher(session: Session, main: Round): void {
    if (main.openedResearcher) return;
    main.openedResearcher = true;
    this.#spawnSubagent(session, researcherSteps(session.rounds.length));
  }

  /**
   * `concurrent-rounds`: a question is asked while a newer subagent round is open, either by a subagent
   * (the main round waits for it) or by the main round itself.
   */
  #askBesideSubagents(session: Session, main: Round, step: Step & { kind: 'ask' }): void {
    const request: HumanInputRequest = { inputId: newId('in'), ...step.request };
    if (ASKED_BY_SUBAGENT.has(session.scenario)) {
      this.#spawnSubagent(session, askerSteps(step, request));
      this.#spawnSubagent(session, helperSteps());
      return;
    }
    this.#spawnSubagent(session, helperSteps());
    this.#ask(session, main, request, step);
  }

  #spawnSubagent(session: Session, steps: Step[]): void {
    const round = this.#records.newRound(session, 'subagent');
    this.#subagents.set(round.roundId, { steps, next: 0 });
    this.#scheduleSubagent(session, round);
  }

  #scheduleSubagent(session: Session, round: Round): void {
    const agent = this.#subagents.get(round.roundId);
    const step = agent?.steps[agent.next];
    if (!agent || !step) return;
    const timer = session.script.timer;
    this.scheduler.after(step.delayMs, () => {
      const live = session.status === 'running' || session.status === 'waiting_human';
      if (session.script.timer !== timer || !live || round.status !== 'running') return;
      agent.next++;
      switch (step.kind) {
        case 'say':
        case 'tool':
          this.#work(session, round, step);
          break;
        case 'ask':
          this.#ask(session, round, step.request as HumanInputRequest, step);
          return;
        default:
          round.status = 'completed';
          round.completedAt = this.clock.now();
          this.#subagents.delete(round.roundId);
          session.updatedAt = this.clock.now();
          return;
      }
      this.#scheduleSubagent(session, round);
    });
  }

  /** Ends every open subagent round (the main line stopped, finished or changed direction). */
  #closeSubagents(session: Session, status: Round['status']): void {
    const now = this.clock.now();
    for (const round of this.#records.openSubagents(session)) {
      round.status = status;
      round.completedAt = now;
      this.#subagents.delete(round.roundId);
    }
  }

  #ask(session: Session, round: Round, request: HumanInputRequest, step: Step & { kind: 'ask' }): void {
    const content = JSON.stringify(request);
    if (step.wire === 'elicitation') {
      this.#records.append(session, round, {
        role: 'assistant',
        name: ELICITATION_MESSAGE,
        content: JSON.stringify({ elicitation: elicitationOf(request) }),
      });
    } else if (this.options.humanInputShape === 'tool_call') {
      this.#records.append(session, round, {
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
      this.#records.append(session, round, { role: 'assistant', name: 'human_input_needed', content });
    }
    const now = this.clock.now();
    round.humanInput = {
      request,
      ...(step.wire ? { wire: step.wire } : {}),
      roundId: round.roundId,
      status: 'pending',
      askedAt: now,
    };
    round.status = 'waiting_human';
    round.completedAt = null;
    // A subagent asked: the main line waits for the answer as well.
    if (round.trigger === 'subagent') this.#records.mainRound(session).status = 'waiting_human';
    this.#continuations.set(request.inputId, step.onAnswer);
    this.store.record({
      virtualAt: now,
      sessionId: session.sessionId,
      type: 'human_input_needed',
      roundId: round.roundId,
      inputId: request.inputId,
    });
    this.#records.setStatus(session, 'waiting_human');
  }

  #finish(
    session: Session,
    status: 'completed' | 'error',
    report?: { summary: string; details?: string[] },
    error?: string,
  ): void {
    const now = this.clock.now();
    const round = this.#records.mainRound(session);
    round.status = status;
    round.completedAt = now;
    this.#closeSubagents(session, status);
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
    this.#records.setStatus(session, status);
    this.store.record({ virtualAt: now, sessionId: session.sessionId, type: 'finished', status });
  }
}
