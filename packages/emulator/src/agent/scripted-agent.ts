import type { EmulatorClock } from '../clock.js';
import type { HumanInputAnswer, HumanInputRequest, Round, Session } from '../model.js';
import type { Quirks } from '../quirks.js';
import type { Scheduler } from '../scheduler.js';
import { newId, type Store } from '../store.js';
import { ELICITATION_MESSAGE, elicitationOf } from './elicitation.js';
import type { SessionRecords } from './records.js';
import type { Step } from './steps.js';
import { ASKED_BY_SUBAGENT, askerSteps, helperSteps, researcherSteps, type Subagent } from './subagents.js';

export interface AgentOptions {
  humanInputShape: 'message' | 'tool_call';
  /** Read at every step, so the admin endpoint can switch quirks on a running emulator. */
  quirks: Quirks;
}

/**
 * The scripted agent: plays a running session's script on the scheduler, step by step, in the main
 * round and (`concurrent-rounds`) in subagent rounds beside it: its messages, its cost, its questions
 * and its end. What the outside asks of a session (signals, answers) is the Engine's.
 */
export class ScriptedAgent {
  /** What an agent does with an answer, per pending inputId (functions can't live in the records). */
  readonly #continuations = new Map<string, (answer: HumanInputAnswer) => Step[]>();
  /** Open subagents by roundId (`concurrent-rounds`). */
  readonly #subagents = new Map<string, Subagent>();

  constructor(
    readonly store: Store,
    readonly scheduler: Scheduler,
    readonly clock: EmulatorClock,
    readonly options: AgentOptions,
    readonly records: SessionRecords,
  ) {}

  /** What the agent does with the answer to `inputId` (asked once: the answer is taken). */
  takeContinuation(inputId: string): ((answer: HumanInputAnswer) => Step[]) | undefined {
    const then = this.#continuations.get(inputId);
    this.#continuations.delete(inputId);
    return then;
  }

  /** A cancelled session's subagents stop for good. */
  forgetSubagents(session: Session): void {
    for (const round of session.rounds) this.#subagents.delete(round.roundId);
  }

  scheduleNext(session: Session): void {
    const step = session.script.steps[session.script.next];
    const timer = session.script.timer;
    this.scheduler.after(step?.delayMs ?? 500, () => {
      if (session.script.timer !== timer || session.status !== 'running') return;
      this.#runStep(session);
    });
  }

  #runStep(session: Session): void {
    const round = this.records.mainRound(session);
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
    this.scheduleNext(session);
  }

  /** The main line stops at a guardrail (maxIterations, the budget): its round ends, subagents are cancelled. */
  #stopShort(session: Session, round: Round, status: 'paused' | 'cost_limit', note?: string): void {
    round.status = status;
    round.completedAt = this.clock.now();
    if (note) round.note = note;
    this.closeSubagents(session, 'cancelled');
    this.records.setStatus(session, status);
  }

  /** A `say` or `tool` step: one iteration of the round's agent, with its messages and cost. */
  #work(session: Session, round: Round, step: Step & { kind: 'say' | 'tool' }): void {
    round.iterations++;
    if (step.kind === 'say') {
      this.records.append(session, round, {
        role: 'assistant',
        content: step.text,
        ...(step.reasoning
          ? { reasoning: step.reasoning, reasoningDurationMs: 800 + step.reasoning.length }
          : {}),
      });
      this.records.charge(session, step.tokens, step.text.length);
      return;
    }
    const toolCallId = newId('call');
    this.records.append(session, round, {
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
    this.records.append(session, round, { role: 'tool', content: step.result, name: step.name, toolCallId });
    if (this.options.quirks.hiddenEntries) {
      this.records.append(session, round, {
        role: 'system',
        content: 'internal: tool usage recorded',
        hidden: true,
      });
    }
    this.records.charge(session, step.tokens, step.result.length + 100);
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
    const round = this.records.newRound(session, 'subagent');
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
  closeSubagents(session: Session, status: Round['status']): void {
    const now = this.clock.now();
    for (const round of this.records.openSubagents(session)) {
      round.status = status;
      round.completedAt = now;
      this.#subagents.delete(round.roundId);
    }
  }

  #ask(session: Session, round: Round, request: HumanInputRequest, step: Step & { kind: 'ask' }): void {
    const content = JSON.stringify(request);
    if (step.wire === 'elicitation') {
      this.records.append(session, round, {
        role: 'assistant',
        name: ELICITATION_MESSAGE,
        content: JSON.stringify({ elicitation: elicitationOf(request) }),
      });
    } else if (this.options.humanInputShape === 'tool_call') {
      this.records.append(session, round, {
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
      this.records.append(session, round, { role: 'assistant', name: 'human_input_needed', content });
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
    if (round.trigger === 'subagent') this.records.mainRound(session).status = 'waiting_human';
    this.#continuations.set(request.inputId, step.onAnswer);
    this.store.record({
      virtualAt: now,
      sessionId: session.sessionId,
      type: 'human_input_needed',
      roundId: round.roundId,
      inputId: request.inputId,
    });
    this.records.setStatus(session, 'waiting_human');
  }

  #finish(
    session: Session,
    status: 'completed' | 'error',
    report?: { summary: string; details?: string[] },
    error?: string,
  ): void {
    const now = this.clock.now();
    const round = this.records.mainRound(session);
    round.status = status;
    round.completedAt = now;
    this.closeSubagents(session, status);
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
    this.records.setStatus(session, status);
    this.store.record({ virtualAt: now, sessionId: session.sessionId, type: 'finished', status });
  }
}
