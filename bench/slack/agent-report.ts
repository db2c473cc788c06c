/**
 * The verdict for the stream surface: at K = 20, the agent surface (the paced bot streaming the
 * agent's work) against the classic one (the paced bot posting its thread) in the same run.
 */
import { round } from '../stats.js';
import type { Phase } from './report.js';

export const AGENT_TARGET = { k: 20, maxRatelimitedPercent: 1, messageP95RatioToClassic: 1 / 3 };

export const AGENT_TARGET_TEXT = `K = ${AGENT_TARGET.k}, agent surface: 0 lost, 0 duplicated; <= ${AGENT_TARGET.maxRatelimitedPercent}% of Slack calls answered 429; message surfacing p95 <= 1/3 x the classic (paced) surface's in the same run`;

/** Each target, met or not, by the agent surface at K = 20 (null without such a run beside a paced one). */
export function agentTargetsOf(phases: Phase[]) {
  const at20 = phases.find((p) => p.k === AGENT_TARGET.k);
  const agent = at20?.figures.find((f) => f.strategy === 'agent');
  const classic = at20?.figures.find((f) => f.strategy === 'paced');
  if (!agent || !classic) return null;
  const classicP95 = classic.messageSurfacing.p95Ms;
  return {
    lostAndDuplicated: {
      missing: agent.missing,
      duplicated: agent.duplicated,
      met: agent.missing === 0 && agent.duplicated === 0,
    },
    ratelimited: {
      percent: agent.calls.ratelimitedPercent,
      met: agent.calls.ratelimitedPercent <= AGENT_TARGET.maxRatelimitedPercent,
    },
    messageP95VsClassic: {
      agentP95Ms: agent.messageSurfacing.p95Ms,
      classicP95Ms: classicP95,
      ratio: classicP95 ? round(agent.messageSurfacing.p95Ms / classicP95, 3) : null,
      // A classic p95 that is a lower bound only makes the true ratio smaller.
      met:
        !agent.messageSurfacing.lowerBound &&
        agent.messageSurfacing.p95Ms <= classicP95 * AGENT_TARGET.messageP95RatioToClassic,
    },
  };
}

export function printAgentReport(targets: ReturnType<typeof agentTargetsOf>): void {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`Target (agent surface): ${AGENT_TARGET_TEXT}`);
  if (!targets) {
    log(`  (no agent and paced run side by side at K = ${AGENT_TARGET.k})`);
    return;
  }
  const v = (met: boolean) => (met ? 'met' : 'NOT met');
  const { lostAndDuplicated: lost, ratelimited, messageP95VsClassic: p95 } = targets;
  log(`  lost/duplicated ${lost.missing}/${lost.duplicated}: ${v(lost.met)}`);
  log(`  429s ${ratelimited.percent}%: ${v(ratelimited.met)}`);
  log(
    `  message p95 agent ${round(p95.agentP95Ms / 1000)} s / classic ${round(p95.classicP95Ms / 1000)} s = ${p95.ratio}: ${v(p95.met)}`,
  );
}
