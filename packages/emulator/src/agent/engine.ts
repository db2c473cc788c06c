import type { EmulatorClock } from '../clock.js';
import { badRequest, HttpError } from '../errors.js';
import type { Account, HumanInputAnswer, Session } from '../model.js';
import { TERMINAL } from '../model.js';
import type { Scheduler } from '../scheduler.js';
import { newId, type Store } from '../store.js';
import { validateAnswer } from './answers.js';
import { SessionRecords } from './records.js';
import { SCENARIO_NAMES, SCENARIOS, workSteps } from './scenarios.js';
import { type AgentOptions, ScriptedAgent } from './scripted-agent.js';

export type EngineOptions = AgentOptions;

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
 * The session state machine of spec §3: creation, signals and answers, checked against the session's
 * status. Every change goes through here or the scripted agent it runs (./scripted-agent.ts), both
 * through the session's records, so the event log, updatedAt and the rounds stay consistent.
 */
export class Engine {
  readonly #records: SessionRecords;
  readonly #agent: ScriptedAgent;

  constructor(
    readonly store: Store,
    readonly scheduler: Scheduler,
    readonly clock: EmulatorClock,
    readonly options: EngineOptions,
  ) {
    this.#records = new SessionRecords(store, clock, options.quirks);
    this.#agent = new ScriptedAgent(store, scheduler, clock, options, this.#records);
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
        this.#agent.scheduleNext(session);
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
    this.#agent.closeSubagents(session, 'completed');
    const then = this.#agent.takeContinuation(inputId);
    const steps = then ? then(answer) : [];
    session.script.steps.splice(session.script.next, 0, ...steps);
    const next = this.#records.newRound(session, 'human_input');
    this.#records.setStatus(session, 'running');
    this.#agent.scheduleNext(session);
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
    this.#agent.closeSubagents(session, 'cancelled');
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
    this.#agent.scheduleNext(session);
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
    this.#agent.forgetSubagents(session);
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
    this.#agent.closeSubagents(session, 'superseded');
    const round = this.#records.newRound(session, 'redirect');
    this.#records.append(session, round, { role: 'user', content: message });
    session.script.steps.splice(session.script.next, 0, {
      kind: 'say',
      delayMs: 1000,
      text: `Changing direction as asked: ${message}`,
    });
    this.#records.setStatus(session, 'running');
    this.#agent.scheduleNext(session);
    return { roundId: round.roundId, message: 'Session redirected' };
  }
}
