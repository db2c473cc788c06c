import { describe, expect, it } from 'vitest';
import { ALICE, CHANNEL, useHarness } from './harness.js';

const h = useHarness();

/** The card's Status, Cost, Rounds and Elapsed fields, as shown. */
function fieldsOf(blocks: unknown[] | undefined): string[] {
  const section = (blocks ?? []).find(
    (b): b is { fields: Array<{ text: string }> } =>
      typeof b === 'object' && b !== null && 'fields' in b && Array.isArray(b.fields),
  );
  return section?.fields.map((f) => f.text) ?? [];
}

describe('a cancelled session reads the same everywhere', () => {
  it('/agent status shows the channel card’s own four fields, word for word', async () => {
    const { sessionId, cardTs } = await h.start(
      'scenario:long keep indexing --budget 2 --max-iterations 100000',
    );
    // Some work done first, so there are numbers to agree on.
    await h.waitForCard(cardTs, (t) => /\*Rounds\*\\n[1-9]/.test(t) && !/\$0\.000 of/.test(t), 'some work');
    await h.driver.act({ user: ALICE, channel: CHANNEL, ts: cardTs, actionId: 'session_cancel' });
    const card = await h.waitForCard(cardTs, (t) => /Ended · Cancelled/.test(t), 'the card cancelled');
    const shownInChannel = fieldsOf(card.blocks);
    expect(shownInChannel[0]).toBe('*Status*\n🛑 Ended · Cancelled');
    expect(shownInChannel[1]).toMatch(/^\*Cost\*\n\$\d+\.\d+ of \$2\.00/);

    // Asked later (the session is long over, no replica follows it): the same four fields, word for word.
    const ws = h.sandbox.workspace;
    const before = ws.ephemerals.length;
    await h.driver.command({ user: ALICE, channel: CHANNEL, text: `status ${sessionId}` });
    const status = await ws.waitFor(
      () => ws.ephemerals.slice(before).find((e) => e.user === ALICE && fieldsOf(e.blocks).length > 0),
      { what: 'the status reply' },
    );
    expect(fieldsOf(status.blocks)).toEqual(shownInChannel);
  });
});
