import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { expect, it } from 'vitest';
import { patient } from '../support/patience.js';
import { CHANNEL, textOf, useHarness } from './harness.js';
import { duplicates, postKeys } from './helpers.js';

// Under Slack's limits (the sandbox's default) the channel posts about one message a second while card edits
// have a budget of their own: a thread must still read in order — every message the agent sent, then the
// report, and only then a card that says the session ended.
// At Slack's own pace (slackSpeed 1): the order is what pacing could upset.
const h = useHarness({ slackSpeed: 1 });

type Seen = { kind: 'post'; message: SandboxMessage } | { kind: 'card'; ts: string; text: string };

function recordChannel(): Seen[] {
  const seen: Seen[] = [];
  h.sandbox.workspace.on('change', (c) => {
    if (c.kind === 'message' && c.message.channel === CHANNEL)
      seen.push({ kind: 'post', message: c.message });
    if (c.kind === 'message_changed' && c.message.channel === CHANNEL && !c.message.thread_ts)
      seen.push({ kind: 'card', ts: c.message.ts, text: textOf(c.message) });
  });
  return seen;
}

const keysOf = (m: SandboxMessage) => postKeys([m]);

it(
  'two chatty sessions in one channel: each card says "Completed" only after its thread holds every message and the report, which comes last',
  async () => {
    const seen = recordChannel();
    // Two at once, so the channel's posts fall well behind what the agents say.
    const sessions = await Promise.all([
      h.start('scenario:chatty survey the first archive'),
      h.start('scenario:chatty survey the second archive'),
    ]);
    for (const { cardTs } of sessions) {
      await h.waitForCard(
        cardTs,
        (t) => /Completed/.test(t),
        'the card in its final state',
        patient(120_000),
      );
    }
    for (const { sessionId, cardTs } of sessions) {
      const inThread = (s: Seen): s is Extract<Seen, { kind: 'post' }> =>
        s.kind === 'post' && s.message.thread_ts === cardTs;
      const report = seen.findIndex((s) => inThread(s) && keysOf(s.message).includes('final-report'));
      const cardFinal = seen.findIndex(
        (s) => s.kind === 'card' && s.ts === cardTs && /Completed/.test(s.text),
      );
      expect(report, `${sessionId}: the report is in the thread`).toBeGreaterThanOrEqual(0);
      expect(cardFinal, `${sessionId}: the card says Completed after the report`).toBeGreaterThan(report);
      // Nothing of the session after its report: it is the thread's last word.
      const after = seen.slice(report + 1).filter(inThread);
      expect(after.map((s) => keysOf(s.message))).toEqual([]);
      const keys = postKeys(h.thread(cardTs));
      expect(keys.at(-1)).toBe('final-report');
      expect(duplicates(keys)).toEqual([]);
      // Every agent message is there (72 in the chatty scenario; the 40,000-character one as a file).
      expect(keys.filter((k) => k.startsWith('msg:')).length).toBeGreaterThanOrEqual(70);
    }
  },
  patient(180_000),
);
