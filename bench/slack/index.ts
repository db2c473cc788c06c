/**
 * Slack benchmark: K chatty sessions in one channel, through the Slack sandbox at Slack's
 * limits (one post a second per channel, bursts of 5; Tier 3 edits), against the emulator, with the real
 * bot as a process. Two bots run side by side in the same run, each with a sandbox (a workspace) of its
 * own, against the same emulator:
 *   - paced: the bot as it ships (its outbound queue: paced, prioritized, batching);
 *   - naive: the same bot with AGENT_SLACK_PACING=off (one post per agent message, 429s left to the Web
 *     API client's retries).
 * Prints a table and writes bench/results/slack.json.
 *
 *   npm run bench:slack -- [--k 4,20] [--questions 5] [--deadline 120] [--speed 1] [--strategies paced,naive,agent]
 *     [--baseline <another checkout, built>]   (adds `baseline`: that build's paced bot, side by side)
 *     [--scenario growing_round|chatty]   (the chatty sessions' emulator scenario)
 *     [--latency 80-400]   (ms each way between the bot and Slack: a Slack that answers as the real one)
 *
 * Catch-up (`--k 4 --scenario chatty --questions 0 --strategies paced,agent`): four sessions of the
 * emulator's `chatty` (24 rounds of a long or short message and a tool call, 100 ms apart: the service is
 * done in seconds, the channel's posts far behind) in one channel; what counts is how long after the
 * service finished every thread has caught up, and how many calls Slack answered 429.
 *
 * Each phase starts K sessions of the emulator's `growing_round` (one message a second for 30 s: K of them
 * out-talk Slack's one post a second), then `--questions` sessions of `approval` a few seconds apart, each
 * asking its question while the chatter goes on. Measured, per strategy:
 *   - message surfacing: the emulator's wall-clock `at` of each agent message -> the moment its text is
 *     first visible in the session's thread (the sandbox's change events, in this process);
 *   - question surfacing: `human_input_needed` -> the prompt visible in the thread;
 *   - Web API calls answered 429, of all calls the bot made;
 *   - missing / duplicated: each agent message must be in its thread exactly once, matched by content
 *     (a paced bot batches several messages into one post).
 * The phase ends when both bots have shown everything. Bounded: at `--deadline` seconds after the first
 * session started, what the agents said by then is frozen as the messages to show, and the paced bot has
 * up to `--grace` seconds more to show them (the naive one is far behind by then and is not waited for).
 * What is not shown at the end counts as missing, and its latency as at least the time it waited
 * (figures built on such lower bounds are marked ≥).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentSessionsClient, type Sessions } from '@agent-sessions/core';
import type { EmulatorEvent } from '@agent-sessions/emulator';
import { spawnEmulator } from '@agent-sessions/emulator/testing';
import { wholeAbove0, writeResult } from '../cli.js';
import { latencyOption } from '../latency.js';
import { round } from '../stats.js';
import { AGENT_TARGET_TEXT, agentTargetsOf, printAgentReport } from './agent-report.js';
import { botMetrics, type Expected, evaluate, expectedOf, type SideFigures, slackFloor } from './figures.js';
import { printReport, roundRobinTargetsOf, TARGET_TEXT, targetsOf } from './report.js';
import { KEY, type Side, type Strategy, startSession, startSide } from './sides.js';

const { values } = parseArgs({
  options: {
    k: { type: 'string', default: '4,20' },
    questions: { type: 'string', default: '5' },
    'question-spacing': { type: 'string', default: '3' },
    deadline: { type: 'string', default: '120' },
    grace: { type: 'string', default: '30' },
    speed: { type: 'string', default: '1' },
    strategies: { type: 'string', default: 'paced,naive,agent' },
    baseline: { type: 'string', default: '' },
    scenario: { type: 'string', default: 'growing_round' },
    latency: { type: 'string', default: '0' },
    out: { type: 'string', default: 'bench/results/slack.json' },
  },
});

const KS = (values.k as string).split(',').map((k) => wholeAbove0('k', k.trim()));
const QUESTIONS = values.questions === '0' ? 0 : wholeAbove0('questions', values.questions);
const LATENCY = latencyOption(values.latency);
const CHATTY_SCENARIOS = ['growing_round', 'chatty'];
const SCENARIO = values.scenario as string;
if (!CHATTY_SCENARIOS.includes(SCENARIO))
  throw new Error(`--scenario: "${SCENARIO}" is not ${CHATTY_SCENARIOS.join(' or ')}`);
const QUESTION_SPACING_MS = wholeAbove0('question-spacing', values['question-spacing']) * 1000;
const DEADLINE_MS = wholeAbove0('deadline', values.deadline) * 1000;
const GRACE_MS = wholeAbove0('grace', values.grace) * 1000;
const SPEED = Number(values.speed);
if (!(SPEED > 0)) throw new Error(`--speed must be a number above 0, got "${values.speed}"`);
const STRATEGIES = (values.strategies as string).split(',').map((s) => {
  const name = s.trim();
  if (name !== 'paced' && name !== 'naive' && name !== 'agent')
    throw new Error(`--strategies: "${name}" is not paced, naive or agent`);
  return name as Strategy;
});
const BASELINE_MAIN = values.baseline
  ? join(values.baseline as string, 'packages/slack-bot/dist/main.js')
  : undefined;
if (BASELINE_MAIN) STRATEGIES.push('baseline');

/** When the first question session starts, after the chatty ones (so it asks while they talk). */
const FIRST_QUESTION_AFTER_MS = 4_000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function phase(
  k: number,
  emulator: Awaited<ReturnType<typeof spawnEmulator>>,
  sessions: Sessions,
  root: string,
) {
  const label = `k${k}`;
  log(`\nK = ${k}: starting ${STRATEGIES.join(' and ')} bots`);
  const sides: Side[] = [];
  try {
    for (const s of await Promise.allSettled(
      STRATEGIES.map((s) => startSide(s, root, emulator.url, label, BASELINE_MAIN, LATENCY)),
    )) {
      if (s.status === 'fulfilled') sides.push(s.value);
      else throw s.reason;
    }
    const t0 = Date.now();
    // The chatty sessions, typed by people at once in both workspaces.
    await Promise.all(
      sides.flatMap((side) =>
        Array.from({ length: k }, (_, i) =>
          startSession(
            side,
            { goal: `slack bench ${label} ${side.strategy} chatter #${i} end`, kind: 'chatty' },
            SCENARIO,
          ),
        ),
      ),
    );
    log(`  ${k} chatty sessions started per bot (${Date.now() - t0} ms)`);
    // The question sessions, spread out so each asks while the chatter goes on.
    for (let j = 0; j < QUESTIONS; j++) {
      const due = t0 + FIRST_QUESTION_AFTER_MS + j * QUESTION_SPACING_MS;
      await sleep(Math.max(0, due - Date.now()));
      await Promise.all(
        sides.map((side) =>
          startSession(
            side,
            { goal: `slack bench ${label} ${side.strategy} question #${j} end`, kind: 'question' },
            'approval',
          ),
        ),
      );
    }
    log(`  ${QUESTIONS} question sessions started per bot`);

    // Follow the emulator until every session has said everything, then the threads until both bots
    // have shown it all, or the deadline.
    const events: EmulatorEvent[] = [];
    let afterSeq = 0;
    const expected = new Map<string, Expected>();
    /** The last event of each session that its expectation was built from. */
    const builtAt = new Map<string, number>();
    const deadline = t0 + DEADLINE_MS;
    let lastLog = Date.now();
    let lastLookup = 0;
    while (Date.now() < deadline + GRACE_MS) {
      // At the deadline the expected messages are frozen (what the agents said by then); the paced bot
      // gets up to the grace to show them, so a message said a moment before the end is not counted lost.
      const frozen = Date.now() >= deadline;
      const fresh = frozen ? [] : await emulator.admin.events({ after: afterSeq });
      events.push(...fresh);
      afterSeq = fresh.at(-1)?.seq ?? afterSeq;
      const tracked = sides.flatMap((s) => s.tracked);
      // The bot creates each session after posting its card, so some appear late (or, behind a backlog
      // of 429s, not at all).
      if (!frozen && tracked.some((t) => !t.sessionId) && Date.now() - lastLookup >= 3_000) {
        lastLookup = Date.now();
        const sessions = await emulator.admin.sessions();
        for (const t of tracked) t.sessionId ??= sessions.find((s) => s.goal.endsWith(t.goal))?.sessionId;
      }
      for (const t of tracked) {
        if (!t.sessionId) continue;
        const latest = events.findLast((e) => e.sessionId === t.sessionId)?.seq ?? 0;
        if (latest === (builtAt.get(t.sessionId) ?? -1)) continue;
        expected.set(t.sessionId, await expectedOf(sessions, t, events));
        builtAt.set(t.sessionId, latest);
      }
      const figures = sides.map((side) => evaluate(side, expected, t0, Date.now(), frozen));
      if (figures.every((f) => f.complete || (frozen && f.strategy === 'naive'))) break;
      if (Date.now() - lastLog >= 15_000) {
        lastLog = Date.now();
        log(
          `  ${Math.round((Date.now() - t0) / 1000)} s: ${figures
            .map(
              (f) =>
                `${f.strategy} ${f.sessionsStarted}/${f.sessions} started, ${f.messages - f.missing}/${f.messages} shown, ${f.calls.ratelimited}/${f.calls.total} calls answered 429`,
            )
            .join('; ')}`,
        );
      }
      await sleep(1_000);
    }
    const end = Date.now();
    const figures = sides.map((side) => evaluate(side, expected, t0, end, end >= deadline));
    for (const f of figures) if (f.strategy === 'naive') f.slackFloor = slackFloor(f);
    await Promise.all(
      sides.map(async (side, i) => {
        const seen = await botMetrics(side.bot).catch(() => undefined);
        if (seen) (figures[i] as SideFigures).botMetrics = seen;
      }),
    );
    for (const f of figures)
      log(
        `  ${f.strategy}: ${f.complete ? `all shown after ${round(f.drainedMs / 1000)} s` : `${f.missing} of ${f.messages} not shown at the end (${round((end - t0) / 1000)} s), such as ${JSON.stringify(f.missingSample)}`}`,
      );
    return { k, figures };
  } finally {
    await Promise.all(sides.map((s) => s.bot.stop()));
    await Promise.all(sides.map((s) => s.closeProxy()));
    await Promise.all(sides.map((s) => s.sandbox.close()));
    for (const s of sides) rmSync(s.dataDir, { recursive: true, force: true });
    // A reset the emulator drops (a socket closed under load) must not throw the phase's figures away.
    await emulator.admin
      .reset()
      .catch((error: unknown) => log(`  (the emulator's reset failed: ${String(error)})`));
  }
}

async function main(): Promise<void> {
  const load = loadavg().map((l) => round(l, 2));
  log(
    `Slack benchmark: K = ${KS.join(', ')} ${SCENARIO} sessions + ${QUESTIONS} approval sessions in one channel, at Slack's limits; ${STRATEGIES.join(' vs ')}; deadline ${DEADLINE_MS / 1000} s; load ${load.join(' ')}`,
  );
  const emulator = await spawnEmulator({ apiKeys: [KEY], speed: SPEED, quirks: '' });
  const client = new AgentSessionsClient({ baseUrl: emulator.url, apiKey: KEY });
  const root = mkdtempSync(join(tmpdir(), 'bench-slack-'));
  const phases: Array<{ k: number; figures: SideFigures[] }> = [];
  try {
    for (const k of KS) phases.push(await phase(k, emulator, client.sessions, root));
  } finally {
    await client.close();
    await emulator.close();
    rmSync(root, { recursive: true, force: true });
  }

  const targets = targetsOf(phases);
  const agentTargets = agentTargetsOf(phases);
  const result = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    loadAverageAtStart: load,
    loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
    scenario: {
      chatty: SCENARIO,
      questions: QUESTIONS,
      question: 'approval',
      speed: SPEED,
      latencyMs: LATENCY,
      deadlineMs: DEADLINE_MS,
    },
    target: TARGET_TEXT,
    targets,
    agentTarget: AGENT_TARGET_TEXT,
    agentTargets,
    roundRobinTargets: roundRobinTargetsOf(phases),
    phases,
  };
  writeResult(values.out as string, result);

  printReport(phases, targets, QUESTIONS);
  printAgentReport(agentTargets);
  log(`load average at the end: ${result.loadAverageAtEnd.join(' ')}`);
  log(`wrote ${values.out}`);
}

await main();
