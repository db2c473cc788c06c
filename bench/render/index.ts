/**
 * Render benchmark: the time per kilobyte of turning agent text into Slack text, for the
 * shapes that made the old renderers quadratic and for ordinary agent text, at 1 KB, 10 KB, 100 KB and
 * 1 MB. Prints a table and writes bench/results/render.json.
 *
 *   npm run bench:render -- [--runs 7] [--old-budget-ms 2000]
 *
 * Per shape and size, medians over `--runs` samples (each sample repeats the call until it has taken
 * ~40 ms, so small sizes aren't lost in timer noise; a GC before each when run with --expose-gc, so one
 * size doesn't pay for the garbage of another), in µs per KB of input:
 *   - new: the passes uncapped (defuseMentions, escapeMrkdwn, markdownToMrkdwn: both renderings of an
 *     assistant message), so the figure shows the passes themselves staying flat;
 *   - old: the same passes as they were (bench/render/legacy.ts). Skipped where the size before
 *     predicts (quadratically) more than `--old-budget-ms` a call: the prediction is shown instead;
 *   - message: agentMessageText + layoutText as the bot runs them, with the render cap (RENDER_MAX):
 *     past it, text goes out as a file unrendered.
 * Then the event-loop time of one agent message of 1 MB of `[`: the synchronous time of rendering it,
 * and the largest delay a 1 ms timer saw meanwhile (perf_hooks.monitorEventLoopDelay). Target: < 50 ms.
 * And the same for the costliest message there can be: each shape at just under the cap, rendered.
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  agentMessageText,
  defuseMentions,
  layoutText,
  markdownToMrkdwn,
  RENDER_MAX,
  safeMrkdwn,
} from '@agent-sessions/slack-bot';
import { wholeAbove0, writeResult } from '../cli.js';
import { median, round } from '../stats.js';
import { legacyRender } from './legacy.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    'old-budget-ms': { type: 'string', default: '2000' },
    out: { type: 'string', default: 'bench/results/render.json' },
  },
});
const RUNS = wholeAbove0('runs', values.runs);
const OLD_BUDGET_MS = wholeAbove0('old-budget-ms', values['old-budget-ms']);
const SIZES = [1_000, 10_000, 100_000, 1_000_000];
const SAMPLE_MS = 40;
const TARGET_EVENT_LOOP_MS = 50;
const log = (line: string) => process.stdout.write(`${line}\n`);
/** Node's collector, when started with --expose-gc (npm run bench:render does). */
const gc = (globalThis as { gc?: () => void }).gc;

const ORDINARY = `## Plan for the release
I read **the API docs** and the [changelog](https://example.com/changelog?from=v1&to=v2). Three things:
- \`search_docs\` found 12 pages; the _rate limit_ section is out of date (it says 50/s, the code says 20/s).
- Ask <@U0BOB> about the <!subteam^S0QA|@qa> sign-off, and mail ops@example.com when it's done.
1. Update the table: | endpoint | limit | -> | /v1/sessions | 20/s |
\`\`\`ts
const limit = await client.limits.get('sessions'); // 20
\`\`\`
> Note: nothing ships before **Thursday** <https://example.com/calendar|(see calendar)>.

`;

/** Each shape's text of `bytes` characters: a run of one fragment, or ordinary agent text repeated. */
const SHAPES: Record<string, (bytes: number) => string> = {
  '[': run('['),
  '(': run('('),
  '<!': run('<!'),
  '<@': run('<@'),
  '*': run('*'),
  _: run('_'),
  '`': run('`'),
  '|': run('|'),
  '[a](http://': run('[a](http://'),
  '<!subteam^S1|': run('<!subteam^S1|'),
  'nested [[[x](](](http://y)))': run(`${'['.repeat(40)}x${']('.repeat(40)}http://y${')'.repeat(40)}`),
  'mixed runs': run(['[', '(', '<!', '<@', '*', '_', '`', '|'].map((s) => s.repeat(200)).join('')),
  'ordinary agent text': run(ORDINARY),
};

function run(fragment: string): (bytes: number) => string {
  return (bytes) => fragment.repeat(Math.ceil(bytes / fragment.length)).slice(0, bytes);
}

/** What the passes of one assistant message cost, uncapped: both renderings, as the old code did. */
const newPasses = (text: string) => markdownToMrkdwn(safeMrkdwn(text)).length + defuseMentions(text).length;
const asShipped = (text: string) => {
  const rendered = agentMessageText({ role: 'assistant', content: text }, { showReasoning: false });
  return rendered ? layoutText(rendered, 'bench').kind.length : 0;
};

/** ms per call: `runs` samples of enough calls to take ~SAMPLE_MS each, their median. */
function timePerCall(call: () => unknown, firstMs: number): number {
  const reps = Math.max(1, Math.min(10_000, Math.ceil(SAMPLE_MS / Math.max(firstMs, 0.001))));
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    gc?.();
    const start = performance.now();
    for (let i = 0; i < reps; i++) call();
    samples.push((performance.now() - start) / reps);
  }
  return median(samples);
}

/** One untimed call (warms up, and tells how many calls make a sample), then the timed samples. */
function measure(call: () => unknown): number {
  const start = performance.now();
  call();
  return timePerCall(call, performance.now() - start);
}

interface SizeResult {
  bytes: number;
  newUsPerKb: number;
  oldUsPerKb: number | null;
  /** When old was skipped: the ms per call that the size before predicts (quadratic growth). */
  oldPredictedMs?: number;
  messageUsPerKb: number;
}

const usPerKb = (ms: number, bytes: number) => round((ms * 1000) / (bytes / 1000), 2);

const shapes: Record<string, SizeResult[]> = {};
log(`render benchmark: ${RUNS} runs, old skipped past ${OLD_BUDGET_MS} ms a call; µs per KB of input`);
log(
  `${'shape'.padEnd(28)} ${'size'.padStart(9)} ${'new'.padStart(9)} ${'old'.padStart(16)} ${'message'.padStart(9)}`,
);
for (const [name, make] of Object.entries(SHAPES)) {
  const rows: SizeResult[] = [];
  let oldLast: { ms: number; bytes: number } | undefined;
  for (const bytes of SIZES) {
    const text = make(bytes);
    const newMs = measure(() => newPasses(text));
    const predicted = oldLast ? oldLast.ms * (bytes / oldLast.bytes) ** 2 : 0;
    let oldMs: number | undefined;
    if (predicted <= OLD_BUDGET_MS) {
      oldMs = measure(() => legacyRender(text));
      oldLast = { ms: oldMs, bytes };
    }
    const messageMs = measure(() => asShipped(text));
    const row: SizeResult = {
      bytes,
      newUsPerKb: usPerKb(newMs, bytes),
      oldUsPerKb: oldMs === undefined ? null : usPerKb(oldMs, bytes),
      ...(oldMs === undefined ? { oldPredictedMs: Math.round(predicted) } : {}),
      messageUsPerKb: usPerKb(messageMs, bytes),
    };
    rows.push(row);
    const old =
      row.oldUsPerKb === null ? `(≈${(predicted / 1000).toFixed(0)} s/call)` : String(row.oldUsPerKb);
    log(
      `${name.padEnd(28)} ${`${bytes / 1000} KB`.padStart(9)} ${String(row.newUsPerKb).padStart(9)} ${old.padStart(16)} ${String(row.messageUsPerKb).padStart(9)}`,
    );
  }
  shapes[name] = rows;
}

/** The slowest size's µs/KB over the fastest's, per shape: 1 for a perfectly flat line. */
const flatness = Object.fromEntries(
  Object.entries(shapes).map(([name, rows]) => {
    const perKb = rows.map((r) => r.newUsPerKb);
    return [name, round(Math.max(...perKb) / Math.max(Math.min(...perKb), 0.001), 2)];
  }),
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One agent message of `content`, rendered while a 1 ms timer watches the event loop. */
async function eventLoopOnce(content: string): Promise<{ syncMs: number; maxDelayMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await sleep(20);
  let syncMs = 0;
  await new Promise<void>((resolve) =>
    setImmediate(() => {
      const start = performance.now();
      asShipped(content);
      syncMs = performance.now() - start;
      resolve();
    }),
  );
  await sleep(20);
  histogram.disable();
  return { syncMs, maxDelayMs: histogram.max / 1e6 };
}

async function eventLoop(what: string, content: string) {
  const loops: Array<{ syncMs: number; maxDelayMs: number }> = [];
  for (let r = 0; r < RUNS; r++) loops.push(await eventLoopOnce(content));
  const maxDelayMs = median(loops.map((l) => l.maxDelayMs));
  return {
    content: what,
    syncMs: round(median(loops.map((l) => l.syncMs)), 1),
    maxDelayMs: round(maxDelayMs, 1),
    targetMs: TARGET_EVENT_LOOP_MS,
    ok: maxDelayMs < TARGET_EVENT_LOOP_MS,
  };
}

const megabyteOfBrackets = await eventLoop("an assistant message of 1,000,000 '['", '['.repeat(1_000_000));
// The most any one message can cost: each shape just under the cap, rendered in full; the slowest kept.
const underCap: Array<Awaited<ReturnType<typeof eventLoop>>> = [];
for (const [name, make] of Object.entries(SHAPES)) {
  underCap.push(
    await eventLoop(`an assistant message of ${RENDER_MAX} characters of ${name}`, make(RENDER_MAX)),
  );
}
const worstUnderCap = underCap.reduce((a, b) => (b.syncMs > a.syncMs ? b : a));
log('');
log(`flatness (slowest µs/KB ÷ fastest, new passes, 1 KB..1 MB): ${JSON.stringify(flatness)}`);
const say = (label: string, e: Awaited<ReturnType<typeof eventLoop>>) =>
  log(
    `${label}: ${e.syncMs} ms synchronous, event loop delayed ${e.maxDelayMs} ms at most (target < ${TARGET_EVENT_LOOP_MS} ms): ${e.ok ? 'ok' : 'MISSED'}`,
  );
say("1 MB of '[' in an agent message", megabyteOfBrackets);
say(`worst message just under the cap (${worstUnderCap.content})`, worstUnderCap);
log(`render cap: ${RENDER_MAX.toLocaleString('en-US')} characters (past it, a file, unrendered)`);

writeResult(values.out as string, {
  date: new Date().toISOString(),
  node: process.version,
  loadAverage: loadavg().map((l) => round(l, 2)),
  runs: RUNS,
  oldBudgetMs: OLD_BUDGET_MS,
  renderMax: RENDER_MAX,
  unit: 'µs per KB of input (median)',
  shapes,
  flatness,
  eventLoop: megabyteOfBrackets,
  worstUnderCap,
});
log(`wrote ${values.out}`);
