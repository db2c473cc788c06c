import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import { expect, it } from 'vitest';
import { ALICE, CHANNEL, textOf, useHarness } from './harness.js';
import { isPrompt } from './helpers.js';

// A question on the agent surface: the stream's appends are out before the question comes, as its own
// message with the prompt's blocks, and the stream stops (Slack's Tier 2) behind it; the answer's round
// streams anew, after the prompt; the end closes it.
const h = useHarness({ env: { AGENT_SLACK_SURFACE: 'agent' } });

const streamState = (m: SandboxMessage) => (m as { streaming_state?: string }).streaming_state;

it('a question stops the stream and comes as its own prompt; the answer’s round streams after it', async () => {
  const { cardTs } = await h.start('scenario:approval deploy the streamed release');
  const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
  // The session's one stream before the question (its rounds share it), stopped once its turn came.
  const before = await h.sandbox.workspace.waitFor(
    () => {
      const earlier = h.thread(cardTs).filter((m) => m.ts < prompt.ts);
      return earlier.length > 0 && earlier.every((m) => streamState(m) === 'completed') ? earlier : undefined;
    },
    { what: 'the stream before the prompt, stopped' },
  );
  expect(before.map((m) => m.text).join('\n')).toContain('I need approval before deploying');
  expect(before.flatMap((m) => m.blocks ?? [])).toContainEqual(
    expect.objectContaining({ type: 'task_card', title: 'search_docs', status: 'complete' }),
  );
  expect(streamState(prompt)).toBeUndefined();

  await h.driver.act({ user: ALICE, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
  const report = await h.waitInThread(
    cardTs,
    (m) => /Deployed v2\.3\.1 to production after/.test(textOf(m)),
    'the report',
  );
  // The answer's stream, stopped behind the report (its stop waits for its own limit, not the report).
  const after = await h.sandbox.workspace.waitFor(
    () => {
      const between = h.thread(cardTs).filter((m) => m.ts > prompt.ts && m.ts < report.ts);
      return between.length > 0 && between.every((m) => streamState(m) === 'completed') ? between : undefined;
    },
    { what: 'the stream between the prompt and the report, stopped' },
  );
  expect(after.flatMap((m) => m.blocks ?? [])).toContainEqual(
    expect.objectContaining({ type: 'task_card', title: 'deploy', status: 'complete' }),
  );
  expect(h.thread(cardTs).at(-1)?.ts).toBe(report.ts);
});
