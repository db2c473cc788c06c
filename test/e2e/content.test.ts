import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { ALICE, allLogLines, BOB, CHANNEL, captureLogs, textOf, useHarness } from './harness.js';
import { duplicates, postKeys } from './helpers.js';
import { expectNoSecrets, secretsOf } from './secrets.js';

const h = useHarness();

/** The agent message keys posted in a thread (a split message's parts count once). */
const messageKeys = (keys: string[]) => [
  ...new Set(keys.filter((k) => k.startsWith('msg:')).map((k) => k.replace(/~\d+$/, ''))),
];

describe('what the agent writes', () => {
  it('chatty: 72 messages fast, each exactly once; long ones in one markdown block, the longest uploaded', async () => {
    const { sessionId, cardTs } = await h.start('scenario:chatty review the modules');
    await h.waitInThread(
      cardTs,
      (m) => /Reviewed 24 modules/.test(textOf(m)),
      'the final report',
      patient(60_000),
    );
    const thread = h.thread(cardTs);
    const keys = postKeys(thread);
    expect(duplicates(keys)).toEqual([]);
    // 72 from the script; with EMULATOR_QUIRKS=concurrent-rounds its subagents write a few more.
    const total = (await h.emulator.admin.session(sessionId))?.messageCount ?? 0;
    expect(total).toBeGreaterThanOrEqual(72);
    // Text messages carry their key as metadata; the one too long for messages came as a file upload.
    const uploads = thread.filter((m) => /too long for a message/.test(m.text ?? ''));
    expect(uploads).toHaveLength(1);
    expect(messageKeys(keys).length + uploads.length).toBe(total);
    // The agent's words go out as markdown blocks, which hold 11,000 characters: the ~6,000-character
    // notes are one message each, with a plain fallback within 3,000.
    const long = thread.filter((m) =>
      (m.blocks ?? []).some((b) => {
        const block = b as { type?: string; text?: string };
        return block.type === 'markdown' && (block.text?.length ?? 0) > 3000;
      }),
    );
    expect(long.length).toBeGreaterThanOrEqual(2);
    for (const m of thread) expect((m.text ?? '').length).toBeLessThanOrEqual(3000);
    const uploaded = [...h.sandbox.workspace.files.values()].filter((f) =>
      f.content.includes('the full audit'),
    );
    expect(uploaded).toHaveLength(1);
    expect(uploaded[0]?.content.length).toBeGreaterThan(30_000);
    expect(
      thread.some((m) => /too long for a message/.test(m.text ?? '') && (m.files?.length ?? 0) === 1),
    ).toBe(true);
    // Reasoning is off by default.
    expect(thread.some((m) => /Thinking about observation/.test(textOf(m)))).toBe(false);
  });

  it('growing_round: a round read while it grows; every note once and in order', async () => {
    const { cardTs } = await h.start('scenario:growing_round');
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'completion', patient(30_000));
    await h.waitInThread(cardTs, (m) => /Finished after 30 progress notes/.test(textOf(m)), 'the report');
    // A thread that fell behind gets several notes in one post (a batch): every note, in order, counts.
    const notes = h
      .thread(cardTs)
      .flatMap((m) => [...(m.text ?? '').matchAll(/Progress note (\d+) of 30/g)].map((x) => Number(x[1])));
    expect(notes).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(duplicates(postKeys(h.thread(cardTs)))).toEqual([]);
  });
});

describe('requests that are not from Slack', () => {
  it('refuses a forged and a stale signature, and starts nothing', async () => {
    const before = (await h.emulator.admin.stats()).sessions;
    const forged = await h.driver.command(
      { user: ALICE, channel: CHANNEL, text: 'start scenario:complete forged' },
      { forgeSignature: true },
    );
    expect(forged.status).toBe(401);
    const stale = await h.driver.command(
      { user: ALICE, channel: CHANNEL, text: 'start scenario:complete stale' },
      { timestampOffsetSeconds: -600 },
    );
    expect(stale.status).toBe(401);
    // A signed start sent after them is the marker: once its session exists, anything the refused two had
    // set going would have too. Exactly one more session: the marker's.
    const marker = await h.start('scenario:complete the signed one');
    const sessions = await h.emulator.admin.sessions();
    expect(sessions).toHaveLength(before + 1);
    expect(sessions.map((s) => s.sessionId)).toContain(marker.sessionId);
  });
});

describe('App Home', () => {
  it("shows the viewer's sessions, once per event even when Slack re-delivers it", async () => {
    const { cardTs } = await h.start('scenario:complete home tab check', BOB);
    // Finished first, so that nothing but the events below has a reason to publish Bob's Home.
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'the session completed');
    const first = await h.driver.appHomeOpened({ user: BOB, eventId: 'EvHOME1' });
    expect(first.status).toBe(200);
    await h.sandbox.workspace.waitFor(
      () => {
        const id = h.sandbox.workspace.homeViews.get(BOB);
        const v = id ? h.sandbox.workspace.views.get(id) : undefined;
        return v && /home tab check/.test(JSON.stringify(v.blocks)) ? v : undefined;
      },
      { what: "Bob's Home tab" },
    );
    // Counted by sequence number: the sandbox keeps only its latest calls.
    const since = h.sandbox.workspace.apiCalls.at(-1)?.seq ?? 0;
    const publishes = () =>
      h.sandbox.workspace.apiCalls.filter((c) => c.seq > since && c.method === 'views.publish').length;
    await h.driver.appHomeOpened({ user: BOB, eventId: 'EvHOME1' }, { retryNum: 1 });
    // A fresh event after the re-delivery is the marker: once its Home is published, a publish the
    // re-delivery set going would have come first.
    await h.driver.appHomeOpened({ user: BOB, eventId: 'EvHOME2' });
    await h.sandbox.workspace.waitFor(() => publishes() > 0, { what: 'the marker event’s Home' });
    expect(publishes()).toBe(1);
  });
});

describe('operations', () => {
  it('GET /healthz checks the store and the service; /livez and /readyz answer; GET /metrics speaks Prometheus', async () => {
    const health = await fetch(`${h.bot.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      ok: true,
      store: { ok: true },
      service: { ok: true },
      // Which of Slack's surfaces sessions use: the harness's default for the card's suites.
      surface: { setting: 'classic', current: 'classic' },
    });
    const live = await fetch(`${h.bot.url}/livez`);
    expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { ok: true } });
    const ready = await fetch(`${h.bot.url}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { ok: true, store: { ok: true }, replica: 'ready' },
    });
    const metrics = await fetch(`${h.bot.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await metrics.text();
    for (const name of [
      'agent_sessions_followed',
      'agent_service_requests_total',
      'agent_service_failed_polls_total',
      'slack_api_calls_total',
      'agent_actions_total',
      'agent_surfacing_latency_seconds_bucket',
    ]) {
      expect(text).toContain(name);
    }
    expect(Number(/^agent_service_requests_total (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/agent_actions_total\{kind="start",outcome="ok"\} \d+/);
    // Every Slack request's ack is timed as Slack would see it: this file's commands and clicks counted.
    expect(Number(/^slack_request_ack_seconds_count (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
  });

  it('/healthz says 503 when the service refuses the key', async () => {
    const { loadConfig } = await import('@agent-sessions/slack-bot');
    const { startBot } = await import('@agent-sessions/slack-bot');
    const { botEnv } = await import('./harness.js');
    const config = loadConfig({ ...botEnv(h.sandbox, h.emulator), AGENT_API_KEY: 'emu_wrong_key_0000' });
    if (!config.slack || !config.service) throw new Error('configured above');
    const bot = await startBot(
      { ...config, slack: config.slack, service: config.service },
      { store: h.store, replicaId: 'health-probe', logDestination: captureLogs() },
    );
    try {
      const health = await fetch(`${bot.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        ok: false,
        service: { ok: false, detail: expect.stringMatching(/401/) },
      });
    } finally {
      await bot.stop();
    }
  });
});

describe('secrets', () => {
  it('no API key or Slack token in any bot log line or anything posted to Slack', async () => {
    expect(allLogLines.length).toBeGreaterThan(50);
    expectNoSecrets(allLogLines, secretsOf(h.sandbox));
    expectNoSecrets([JSON.stringify(h.sandbox.workspace.snapshot())], secretsOf(h.sandbox));
  });
});
