/**
 * The Slack benchmark's verdict and table: the targets held against the paced bot at K = 20, and
 * one column per phase and strategy.
 */
import { round } from '../stats.js';
import type { Latencies, SideFigures } from './figures.js';
import { ROUND_ROBIN_TARGET, ROUND_ROBIN_TARGET_TEXT } from './round-robin.js';

/** The targets at K = 20 for the paced bot: nothing lost, few 429s, questions and messages fast. */
export const TARGET = { k: 20, maxRatelimitedPercent: 1, questionP95Ms: 3000, messageP95RatioToNaive: 0.25 };

export const TARGET_TEXT = `K = ${TARGET.k}, paced: 0 lost, 0 duplicated; <= ${TARGET.maxRatelimitedPercent}% of Slack calls answered 429; question surfacing p95 <= ${TARGET.questionP95Ms / 1000} s; message surfacing p95 <= ${TARGET.messageP95RatioToNaive} x naive's`;

export interface Phase {
  k: number;
  figures: SideFigures[];
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${round(ms / 1000)} s`;
const bound = (l: Latencies, ms: number) => `${l.lowerBound ? '≥ ' : ''}${seconds(ms)}`;

/** Each target, met or not, by the paced bot at K = 20 (null without such a run). */
export function targetsOf(phases: Phase[]) {
  const at20 = phases.find((p) => p.k === TARGET.k);
  const paced = at20?.figures.find((f) => f.strategy === 'paced');
  const naive = at20?.figures.find((f) => f.strategy === 'naive');
  // Naive's p95 is a lower bound (the run is bounded): the larger of what was measured and Slack's floor.
  const naiveP95 = naive ? (naive.slackFloor?.p95Ms ?? naive.messageSurfacing.p95Ms) : 0;
  return paced
    ? {
        lostAndDuplicated: {
          missing: paced.missing,
          duplicated: paced.duplicated,
          met: paced.missing === 0 && paced.duplicated === 0,
        },
        ratelimited: {
          percent: paced.calls.ratelimitedPercent,
          met: paced.calls.ratelimitedPercent <= TARGET.maxRatelimitedPercent,
        },
        questionP95: {
          ms: paced.questionSurfacing.p95Ms,
          asked: paced.questionSurfacing.count,
          // Every question asked (a question session starts only once its card is posted) and shown in time.
          met:
            paced.questionSurfacing.count === paced.questionSurfacing.sessions &&
            !paced.questionSurfacing.lowerBound &&
            paced.questionSurfacing.p95Ms <= TARGET.questionP95Ms,
        },
        messageP95VsNaive: naive
          ? {
              naiveP95Ms: naiveP95,
              ratio: naiveP95 ? round(paced.messageSurfacing.p95Ms / naiveP95, 3) : null,
              // A naive p95 that is a lower bound only makes the true ratio smaller.
              met:
                !paced.messageSurfacing.lowerBound &&
                paced.messageSurfacing.p95Ms <= naiveP95 * TARGET.messageP95RatioToNaive,
            }
          : null,
      }
    : null;
}

/** The figures as a table, then each target's verdict. */
export function printReport(phases: Phase[], targets: ReturnType<typeof targetsOf>, questions: number): void {
  const at20 = phases.find((p) => p.k === TARGET.k);
  const paced = at20?.figures.find((f) => f.strategy === 'paced');
  const cols = phases.flatMap((p) => p.figures.map((f) => ({ k: p.k, f })));
  const row = (name: string, cell: (f: SideFigures) => string) =>
    log(`${name.padEnd(34)}${cols.map((c) => cell(c.f).padStart(18)).join('')}`);
  log('');
  row('', () => '');
  log(`${''.padEnd(34)}${cols.map((c) => `K=${c.k} ${c.f.strategy}`.padStart(18)).join('')}`);
  row('sessions started / agent messages', (f) => `${f.sessionsStarted}/${f.sessions} / ${f.messages}`);
  row('card surfacing p95', (f) => bound(f.cardSurfacing, f.cardSurfacing.p95Ms));
  row('message surfacing p50', (f) => bound(f.messageSurfacing, f.messageSurfacing.p50Ms));
  row('message surfacing p95', (f) => bound(f.messageSurfacing, f.messageSurfacing.p95Ms));
  const asked = (f: SideFigures, ms: number) =>
    f.questionSurfacing.count ? bound(f.questionSurfacing, ms) : '- (none asked)';
  row('questions asked', (f) => `${f.questionSurfacing.count}/${f.questionSurfacing.sessions}`);
  row('  naive: floor from Slack p50/p95', (f) =>
    f.slackFloor ? `≥ ${round(f.slackFloor.p50Ms / 1000, 0)} / ${round(f.slackFloor.p95Ms / 1000, 0)} s` : '',
  );
  row('question surfacing p50', (f) => asked(f, f.questionSurfacing.p50Ms));
  row('question surfacing p95', (f) => asked(f, f.questionSurfacing.p95Ms));
  row('  chatter unshown at ask (median)', (f) => String(f.questionSurfacing.backlogAtAskMedian));
  row('Slack calls / answered 429', (f) => `${f.calls.total} / ${f.calls.ratelimited}`);
  row('  % answered 429', (f) => `${f.calls.ratelimitedPercent}%`);
  row('missing / duplicated', (f) => `${f.missing} / ${f.duplicated}`);
  row('bot: mean batch size', (f) => String(f.botMetrics?.meanBatchSize ?? '-'));
  row('all shown after', (f) => (f.complete ? seconds(f.drainedMs) : `not by ${seconds(f.drainedMs)}`));
  row(
    'round-robin floor p50 / p95',
    (f) => `${round(f.roundRobinFloor.p50Ms / 1000)} / ${round(f.roundRobinFloor.p95Ms / 1000)} s`,
  );
  row('message p95 / floor p95', (f) =>
    f.roundRobinFloor.p95Ms ? `${round(f.messageSurfacing.p95Ms / f.roundRobinFloor.p95Ms, 2)}x` : '-',
  );
  row('caught up after service finished', (f) =>
    f.caughtUp ? `${f.caughtUp.lowerBound ? '≥ ' : ''}${seconds(f.caughtUp.afterMs)}` : '-',
  );
  log('');
  log(`Target: ${TARGET_TEXT}`);
  if (targets) {
    const v = (met: boolean) => (met ? 'met' : 'NOT met');
    log(`  lost/duplicated ${paced?.missing}/${paced?.duplicated}: ${v(targets.lostAndDuplicated.met)}`);
    log(`  429s ${targets.ratelimited.percent}%: ${v(targets.ratelimited.met)}`);
    log(
      `  questions asked ${targets.questionP95.asked}/${questions}, p95 ${bound(paced?.questionSurfacing as Latencies, targets.questionP95.ms)}: ${v(targets.questionP95.met)}`,
    );
    if (targets.messageP95VsNaive)
      log(
        `  message p95 paced/naive ${targets.messageP95VsNaive.ratio}: ${v(targets.messageP95VsNaive.met)}`,
      );
  } else log(`  (no paced run at K = ${TARGET.k})`);
  const roundRobinTargets = roundRobinTargetsOf(phases);
  log(`Target (round-robin floor): ${ROUND_ROBIN_TARGET_TEXT}`);
  const v = (met: boolean) => (met ? 'met' : 'NOT met');
  if (roundRobinTargets.floor)
    log(
      `  K=${ROUND_ROBIN_TARGET.floorK} message p95 ${seconds(roundRobinTargets.floor.p95Ms)} = ${roundRobinTargets.floor.ratio}x the floor's ${seconds(roundRobinTargets.floor.floorP95Ms)}: ${v(roundRobinTargets.floor.met)}`,
    );
  else log(`  (no paced run at K = ${ROUND_ROBIN_TARGET.floorK})`);
  if (roundRobinTargets.caughtUp)
    log(
      `  K=${ROUND_ROBIN_TARGET.caughtUpK} caught up ${roundRobinTargets.caughtUp.text} after the service finished: ${v(roundRobinTargets.caughtUp.met)}`,
    );
  else log(`  (no paced run at K = ${ROUND_ROBIN_TARGET.caughtUpK} whose chatty sessions all finished)`);
}

/** The round-robin targets, met or not, by the paced bot (null where the run has no such phase). */
export function roundRobinTargetsOf(phases: Phase[]) {
  const paced = (k: number) => phases.find((p) => p.k === k)?.figures.find((f) => f.strategy === 'paced');
  const atFloor = paced(ROUND_ROBIN_TARGET.floorK);
  const atCaughtUp = paced(ROUND_ROBIN_TARGET.caughtUpK)?.caughtUp;
  const floorP95Ms = atFloor?.roundRobinFloor.p95Ms ?? 0;
  return {
    floor:
      atFloor && floorP95Ms
        ? {
            p95Ms: atFloor.messageSurfacing.p95Ms,
            floorP95Ms,
            ratio: round(atFloor.messageSurfacing.p95Ms / floorP95Ms, 2),
            met:
              !atFloor.messageSurfacing.lowerBound &&
              atFloor.messageSurfacing.p95Ms <= ROUND_ROBIN_TARGET.messageP95ToFloor * floorP95Ms,
          }
        : null,
    caughtUp: atCaughtUp
      ? {
          ms: atCaughtUp.afterMs,
          text: `${atCaughtUp.lowerBound ? '≥ ' : ''}${seconds(atCaughtUp.afterMs)}`,
          met: !atCaughtUp.lowerBound && atCaughtUp.afterMs <= ROUND_ROBIN_TARGET.caughtUpMs,
        }
      : null,
  };
}
