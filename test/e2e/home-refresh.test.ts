import { describe, expect, it } from 'vitest';
import { ALICE, BOB, useHarness } from './harness.js';
import { homeOf, homeText, pressInHome } from './home-tab.js';

const h = useHarness();

/** Waits until the person's Home, as last published, satisfies `test` (nobody reopens the tab). */
const homeShows = (user: string, test: (text: string) => boolean, what: string) =>
  h.sandbox.workspace.waitFor(
    () => {
      const text = homeText(homeOf(h.sandbox, user));
      return test(text) ? text : undefined;
    },
    { what },
  );

describe('App Home stays true without being reopened', () => {
  it('a question, its answer from Home and the end are published to everyone they concern', async () => {
    // Both open their Home once, before anything happens.
    await h.driver.appHomeOpened({ user: ALICE });
    await h.driver.appHomeOpened({ user: BOB });
    await homeShows(BOB, (t) => /Your agent sessions/.test(t), "Bob's first Home");
    const { cardTs } = await h.start('scenario:approval ship the home release');
    // The question reaches Bob's Home (he is an approver) and the session Alice's.
    await homeShows(
      BOB,
      (t) => /Waiting on you \(1\)/.test(t) && /input_approve/.test(t),
      'the question on Bob’s Home',
    );
    await homeShows(ALICE, (t) => /ship the home release/.test(t), 'the session on Alice’s Home');
    expect((await pressInHome(h.sandbox, h.driver, BOB, 'input_approve')).status).toBe(200);
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'the session completed');
    // Answered and finished: no live buttons left on Bob's Home, and Alice's says it is done.
    await homeShows(
      BOB,
      (t) => !/Waiting on you/.test(t) && !/input_approve/.test(t),
      'Bob’s Home without the question',
    );
    await homeShows(ALICE, (t) => /Completed/.test(t), 'the end on Alice’s Home');
  });

  it('a session started in a direct message shows as one, not as a channel', async () => {
    await h.driver.appHomeOpened({ user: ALICE });
    await h.driver.command({ user: ALICE, channel: ALICE, text: 'start scenario:complete a quiet dm task' });
    const text = await homeShows(ALICE, (t) => /a quiet dm task/.test(t), 'the DM session on Alice’s Home');
    expect(text).toMatch(/a direct message/);
    expect(text).not.toMatch(/<#U0ALICE>/);
  });
});
