import type { ActPolicy, ActTarget, Approvers, Verdict } from './policy.js';
import { joinOr } from './policy.js';

/**
 * AGENT_MAX_BUDGET, under every policy: raising a session's budget above it is an approver's decision —
 * under approvers-only (four eyes) an approver other than the person who started it. Up to it, and for
 * everything else, the policy it wraps decides alone. (No session starts above it: StartingService.)
 */
export class BudgetCeiling implements ActPolicy {
  readonly whoMayAnswer: ActPolicy['whoMayAnswer'];

  constructor(
    private readonly inner: ActPolicy,
    private readonly approvers: Pick<Approvers, 'includes' | 'mentions'>,
    private readonly maxBudget: number,
    private readonly fourEyes: boolean,
  ) {
    this.whoMayAnswer = inner.whoMayAnswer?.bind(inner);
  }

  async mayAct(userId: string, target: ActTarget): Promise<Verdict> {
    if (target.kind !== 'steer' || target.newBudget === undefined || target.newBudget <= this.maxBudget) {
      return this.inner.mayAct(userId, target);
    }
    const cap = `$${this.maxBudget.toFixed(2)} (AGENT_MAX_BUDGET)`;
    const who = this.approvers.mentions();
    const named = who.length > 0 ? joinOr(who) : 'an approver (none is configured: set AGENT_APPROVERS)';
    if (this.fourEyes && userId === target.session.startedBy) {
      return {
        allowed: false,
        reason: `A budget above ${cap} needs a second person: you started this session, so ask ${named} to raise it.`,
      };
    }
    if (await this.approvers.includes(userId)) return { allowed: true };
    return { allowed: false, reason: `A budget above ${cap} needs an approver: ask ${named} to raise it.` };
  }
}
