/**
 * A session waits on a question the follower could not read. The publisher says so in the
 * thread once per event, with the raw data and something to click; Answer as text reaches the service
 * as free text to the input id, through the same answering path as any question.
 */
import type { FollowEvent } from '@agent-sessions/core';
import { validateBlocks } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import { BOLT_DEFAULTS, useSandboxWithClient } from '../../../../../test/support/world.js';
import { ACTIONS } from '../../../src/blocks/ids.js';
import { SessionPublisher } from '../../../src/services/following/session-publisher.js';
import { AnsweringService } from '../../../src/services/people/answering.js';
import { OutboundQueue } from '../../../src/services/slack-out/outbound/index.js';
import { CardUpdater, PostOwner, ThreadPoster } from '../../../src/services/slack-out/thread/index.js';
import { FakePosts, fakeWorld, logger, session } from '../../fakes.js';

const sandboxed = useSandboxWithClient({}, BOLT_DEFAULTS);

async function setup() {
  const world = fakeWorld();
  const card = await sandboxed.slack.chat.postMessage({ channel: 'C0AGENTS', text: 'card' });
  world.sessions.add(session({ cardTs: String(card.ts), status: 'waiting_human' }));
  const cards = new CardUpdater(sandboxed.slack, logger, world.metrics);
  const owner = new PostOwner();
  const outbound = new OutboundQueue(logger, world.metrics, { pacing: 'off' });
  const publisher = new SessionPublisher({
    store: { sessions: world.sessions, prompts: world.prompts, posts: new FakePosts() },
    owner,
    poster: new ThreadPoster({
      slack: sandboxed.slack,
      posts: new FakePosts(),
      logger,
      metrics: world.metrics,
      owner,
    }),
    outbound,
    cards,
    metrics: world.metrics,
    logger,
    slack: sandboxed.slack,
    showReasoning: false,
  });
  const answering = new AnsweringService({
    client: world.service,
    prompts: world.prompts,
    slack: sandboxed.slack,
    policy: world.policy,
    visibility: world.visibility,
    notifier: world.notifier,
    metrics: world.metrics,
    logger,
  });
  const thread = () => sandboxed.sandbox.workspace.replies('C0AGENTS', String(card.ts));
  return { ...world, publisher, answering, thread, stop: () => cards.stop() };
}

const unreadable = (extra: Partial<FollowEvent> & { inputId?: string; raw?: unknown } = {}): FollowEvent =>
  ({
    type: 'human_input_unreadable',
    sessionId: 'sess_1',
    key: 'unreadable:1',
    status: 'waiting_human',
    raw: { rounds: [{ pending: { question: 'Deploy <prod>?', ask: '```' } }], messages: [] },
    ...extra,
  }) as FollowEvent;

/** The value of the button with this action_id. */
function buttonValue(blocks: unknown, actionId: string): string | undefined {
  for (const block of Array.isArray(blocks) ? blocks : []) {
    for (const element of block?.elements ?? []) if (element?.action_id === actionId) return element.value;
  }
  return undefined;
}

const buttons = (blocks: unknown) =>
  (JSON.stringify(blocks).match(/"action_id":"[^"]+"/g) ?? []).map((s) => s.slice(13, -1));

describe('a question that could not be read', () => {
  it('is said once in the thread, mentioning the starter, with the raw data escaped and both buttons', async () => {
    const w = await setup();
    await w.publisher.handle(unreadable({ inputId: 'in_9' }));
    await w.publisher.handle(unreadable({ inputId: 'in_9' }));
    const posted = w.thread().filter((m) => /could not be read/.test(m.text ?? ''));
    expect(posted).toHaveLength(1);
    const [message] = posted;
    expect(validateBlocks(message?.blocks ?? [], 'message')).toEqual([]);
    const json = JSON.stringify(message?.blocks);
    expect(json).toContain('<@U0ALICE>');
    expect(json).toContain('Deploy &lt;prod&gt;?');
    expect(json).not.toMatch(/"ask": "```"/);
    expect(buttons(message?.blocks)).toEqual([ACTIONS.answer, ACTIONS.cancel]);
    expect(JSON.stringify(message?.blocks)).toContain('Answer as text');
    await w.stop();
  });

  it('Answer as text opens a text form and sends the text as free text to the input id', async () => {
    const w = await setup();
    await w.publisher.handle(unreadable({ inputId: 'in_9' }));
    const message = w.thread().find((m) => /could not be read/.test(m.text ?? ''));
    const value = buttonValue(message?.blocks, ACTIONS.answer);
    expect(value).toBeDefined();
    const form = await w.answering.openForm(value, 'U0ALICE');
    expect(form.ok && form.view.callback_id).toBe('answer_input');
    const submitted = await w.answering.submitForm({
      ref: value,
      userId: 'U0ALICE',
      answer: { kind: 'form', values: { answer: 'Yes, deploy to staging first' } },
    });
    if (!submitted.ok) throw new Error(JSON.stringify(submitted.errors));
    await submitted.run();
    expect(w.calls.find(([m]) => m === 'service.respond')).toEqual([
      'service.respond',
      'sess_1',
      'in_9',
      { freeText: 'Yes, deploy to staging first' },
    ]);
    // The message now says who answered what; its buttons are gone.
    const shown = sandboxed.sandbox.workspace.findMessage('C0AGENTS', String(message?.ts));
    expect(JSON.stringify(shown?.blocks)).toContain('<@U0ALICE> answered: Yes, deploy to staging first');
    expect(buttons(shown?.blocks)).toEqual([]);
    await w.stop();
  });

  it('without an input id, offers Cancel only (never nothing), and records no question', async () => {
    const w = await setup();
    await w.publisher.handle(unreadable({ key: 'unreadable:2' }));
    const message = w.thread().find((m) => /could not be read/.test(m.text ?? ''));
    expect(buttons(message?.blocks)).toEqual([ACTIONS.cancel]);
    expect(w.prompts.records.size).toBe(0);
    await w.stop();
  });

  it('shows a bounded excerpt of a large raw payload, saying how much was left out', async () => {
    const w = await setup();
    const messages = Array.from({ length: 20 }, (_, i) => ({
      role: 'assistant',
      content: `m${i} ${'x'.repeat(500)}`,
    }));
    await w.publisher.handle(
      unreadable({ key: 'unreadable:3', inputId: 'in_3', raw: { rounds: [], messages } }),
    );
    const message = w.thread().find((m) => /could not be read/.test(m.text ?? ''));
    expect(validateBlocks(message?.blocks ?? [], 'message')).toEqual([]);
    expect(JSON.stringify(message?.blocks)).toMatch(/more characters not shown/);
    await w.stop();
  });
});
