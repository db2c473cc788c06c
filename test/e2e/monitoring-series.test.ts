import { describe, expect, it } from 'vitest';
import { groupedLabels, labelMatchers, metricNames } from '../deploy/monitoring.js';
import { patient } from '../support/patience.js';
import { CHANNEL, useHarness } from './harness.js';

// deploy/monitoring (the dashboard, the alert rules, the PrometheusRule and the alerts' own tests) held to
// what a running bot exports at /metrics: every series and every label value they write down is there, and
// the labels a panel's legend shows carry Slack's own method names. A panel grouping by a value nobody
// exports stays empty, and an alert matching one never fires. (test/deploy-tools runs the same files in a
// real Prometheus; this needs none.)
const h = useHarness();

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text exposition, one sample a line. */
function samplesOf(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[k as string] = v as string;
    out.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return out;
}

const scrape = async () => samplesOf(await (await fetch(`${h.bot.url}/metrics`)).text());

/** A metric's samples, a histogram's or a summary's by its series' names. */
const of = (samples: Sample[], metric: string) =>
  samples.filter((s) => [metric, `${metric}_bucket`, `${metric}_count`, `${metric}_sum`].includes(s.name));

/** A Slack Web API method's name: `chat.postMessage`, `agents.sessions.setStatus`. */
const SLACK_METHOD = /^[a-z]+(\.[a-zA-Z0-9]+)+$/;

/** Labels Prometheus adds to every series it scrapes (the bot exports none of them). */
const TARGET_LABELS = new Set(['job', 'instance']);

describe("deploy/monitoring against a running bot's /metrics", () => {
  it(
    'every series and label value the dashboard and the alerts name is exported, a 429 counted by its Slack method',
    async () => {
      // The card's post is answered 429 once: the queue waits its Retry-After and counts it.
      h.sandbox.failNext({
        method: 'chat.postMessage',
        error: 'ratelimited',
        retryAfter: 1,
        channel: CHANNEL,
      });
      const { cardTs } = await h.start('scenario:complete write the release notes');
      await h.waitInThread(cardTs, () => true, 'a first thread post');
      const limited = async () => of(await scrape(), 'slack_rate_limited_total').filter((s) => s.value > 0);
      await expect
        .poll(async () => (await limited()).length, { timeout: patient(30_000) })
        .toBeGreaterThan(0);
      // What alerts.test.yaml feeds SlackRateLimited: a 429 on chat.postMessage, by that name.
      expect((await limited()).map((s) => s.labels)).toEqual([{ method: 'chat.postMessage' }]);

      const samples = await scrape();
      const wanted = [...new Set([...metricNames('alerts'), ...metricNames('dashboard')])];
      expect(wanted.length).toBeGreaterThanOrEqual(10);
      // `up` is Prometheus's own, not the bot's.
      expect(wanted.filter((name) => name !== 'up' && of(samples, name).length === 0)).toEqual([]);

      const matchers = labelMatchers().filter((m) => !TARGET_LABELS.has(m.label));
      expect(matchers.length).toBeGreaterThanOrEqual(4);
      const missing: string[] = [];
      for (const m of matchers) {
        const values = new Set(of(samples, m.metric).map((s) => s.labels[m.label]));
        // `=~` with a plain alternation names each of its values; other patterns name none for sure.
        const named =
          m.op === '=' ? [m.value] : m.op === '=~' && /^[\w.|]+$/.test(m.value) ? m.value.split('|') : [];
        for (const value of named)
          if (!values.has(value)) missing.push(`${m.from}: ${m.metric}{${m.label}="${value}"}`);
      }
      expect(missing).toEqual([]);

      // The dashboard's legend shows each value of a label it groups by: a method is Slack's method name.
      const grouped = groupedLabels().filter((g) => g.label === 'method');
      expect(grouped.length).toBeGreaterThanOrEqual(1);
      for (const { metric, label } of grouped) {
        const values = of(samples, metric).map((s) => s.labels[label] ?? '');
        expect(values.length, metric).toBeGreaterThan(0);
        expect(
          values.filter((v) => !SLACK_METHOD.test(v)),
          metric,
        ).toEqual([]);
      }
      // Every Slack call the bot counts goes by its method's name too.
      const calls = of(samples, 'slack_api_calls_total').map((s) => s.labels.method ?? '');
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((v) => !SLACK_METHOD.test(v))).toEqual([]);
    },
    patient(90_000),
  );
});
