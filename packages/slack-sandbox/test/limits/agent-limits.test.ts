import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/index.js';
import { METHOD_TIERS } from '../../src/limits/rate-limits.js';
import { botClient } from '../bot-client.js';

// The agent methods in Slack's tiers, each as its reference page gives it, on the sandbox's clock:
// appendStream Tier 4, startStream and stopStream Tier 2, agents.sessions.* Tier 3. Over the limit:
// HTTP 429 with Retry-After, logged with the limit that refused it.
let sandbox: RunningSandbox;
let now = 1_700_000_000_000;

beforeAll(async () => {
  sandbox = await startSandbox({ now: () => now, rateLimits: {} });
});
afterAll(async () => {
  await sandbox?.close();
});

type Failure = { data?: { error?: string }; retryAfter?: number };

describe("the agent methods' rate limits", () => {
  it('are the tiers of their reference pages', () => {
    expect({
      append: METHOD_TIERS['chat.appendStream'],
      start: METHOD_TIERS['chat.startStream'],
      stop: METHOD_TIERS['chat.stopStream'],
      setStatus: METHOD_TIERS['agents.sessions.setStatus'],
      rename: METHOD_TIERS['agents.sessions.rename'],
      prompts: METHOD_TIERS['assistant.threads.setSuggestedPrompts'],
    }).toEqual({ append: 4, start: 2, stop: 2, setStatus: 3, rename: 3, prompts: 4 });
  });

  it('appendStream: 100 at once, the 101st answered 429 with Retry-After; startStream stops at 20', async () => {
    const web = botClient(sandbox, { rejectRateLimitedCalls: true });
    const root = (await web.chat.postMessage({ channel: 'C0AGENTS', text: 'go' })).ts as string;
    const to = {
      channel: 'C0AGENTS',
      thread_ts: root,
      recipient_user_id: 'U0ALICE',
      recipient_team_id: 'T0SANDBOX',
    };
    const { ts } = await web.chat.startStream({ ...to, markdown_text: 'a' });
    for (let i = 0; i < 100; i++)
      expect(
        (await web.chat.appendStream({ channel: 'C0AGENTS', ts: ts as string, markdown_text: '.' })).ok,
      ).toBe(true);
    const refused = (await web.chat
      .appendStream({ channel: 'C0AGENTS', ts: ts as string, markdown_text: '.' })
      .catch((e) => e)) as Failure;
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(sandbox.workspace.apiCalls.at(-1)).toMatchObject({
      method: 'chat.appendStream',
      status: 429,
      limit: 'chat.appendStream (Tier 4)',
    });
    // startStream has its own Tier 2 bucket: 19 more (one was used above), then 429.
    for (let i = 0; i < 19; i++)
      expect((await web.chat.startStream({ ...to, markdown_text: 'b' })).ok).toBe(true);
    const tooMany = (await web.chat.startStream({ ...to, markdown_text: 'b' }).catch((e) => e)) as Failure;
    expect(tooMany.retryAfter).toBe(3);
    // A minute later the buckets are full again.
    now += 60_000;
    expect(
      (await web.chat.appendStream({ channel: 'C0AGENTS', ts: ts as string, markdown_text: '.' })).ok,
    ).toBe(true);
  });

  it('agents.sessions.setStatus: 50 at once, then 429', async () => {
    now += 3_600_000;
    const web = botClient(sandbox, { rejectRateLimitedCalls: true });
    const root = (await web.chat.postMessage({ channel: 'C0AGENTS', text: 'go' })).ts as string;
    const set = () =>
      web.agents.sessions.setStatus({ channel_id: 'C0AGENTS', thread_ts: root, status: 'processing' });
    for (let i = 0; i < 50; i++) expect((await set()).ok).toBe(true);
    const refused = (await set().catch((e) => e)) as Failure;
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(sandbox.workspace.apiCalls.at(-1)).toMatchObject({
      status: 429,
      limit: 'agents.sessions.setStatus (Tier 3)',
    });
  });
});
