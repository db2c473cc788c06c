import { describe, expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { actionIds } from './helpers.js';
import { afterLeasePasses } from './lease-passes.js';

// The service forgets sessions (here: the emulator is reset, as when `npm start` runs again with a
// fresh emulator over a kept store). The bot says so once where it can, and stops following them, even
// when the Slack thread is gone too.
const h = useHarness();
const STATUS_ROUTE = 'GET /v1/sessions/:id';

describe('a session the service no longer knows', () => {
  it('is reported once in its thread, or silently when the thread is gone, and no longer followed', async () => {
    // As on a busy machine, the bot first sees each session late: two minutes of the agent's time (the
    // emulator runs 10× real time) after it started. Left at the default 50 iterations a round (seconds
    // here), the agent would have paused by itself by then, and the card would never say Running.
    await h.emulator.admin.setFaults({ latencyMs: 12_000, pathPattern: '^GET /v1/sessions/' });
    const kept = await h.start('scenario:long index the wiki --max-iterations 100000');
    const orphan = await h.start('scenario:long index the blog --max-iterations 100000');
    // Once both first reads are on their way, the reads after them are answered at once again.
    const statusReads = async () => (await h.emulator.admin.stats()).requests[STATUS_ROUTE] ?? 0;
    await expect.poll(statusReads, { timeout: WAIT_MS }).toBeGreaterThanOrEqual(2);
    await h.emulator.admin.clearFaults();
    await h.waitForCard(kept.cardTs, (t) => /Running/.test(t), 'running');
    await h.waitForCard(orphan.cardTs, (t) => /Running/.test(t), 'running');
    expect(h.sandbox.workspace.remove(CHANNEL, orphan.cardTs)).toBe(true);

    await h.emulator.admin.reset();

    const notice = /can no longer follow this session/;
    await h.waitInThread(kept.cardTs, (m) => notice.test(textOf(m)), 'the notice');
    const finished = async (sessionId: string) => (await h.store.sessions.get(sessionId))?.finished;
    await expect.poll(() => finished(kept.sessionId), { timeout: patient(10_000) }).toBe(true);
    await expect.poll(() => finished(orphan.sessionId), { timeout: patient(10_000) }).toBe(true);
    expect(await h.store.sessions.list({ activeOnly: true })).toEqual([]);
    // The card says so and offers nothing to click.
    await h.waitForCard(kept.cardTs, (t) => /No longer followed/.test(t), 'the card closed');
    expect(actionIds(h.card(kept.cardTs))).toEqual([]);
    // Some lease passes later (each a chance to post it again), still one notice.
    await afterLeasePasses(h.bot, 3);
    expect(h.thread(kept.cardTs).filter((m) => notice.test(textOf(m)))).toHaveLength(1);
  });
});
