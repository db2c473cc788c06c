import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '@agent-sessions/core';
import { InvalidStateError } from '@slack/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoWorkspaceError, WorkspaceClient } from '../../../src/services/installs/client.js';
import { storedStates } from '../../../src/services/installs/oauth-flow.js';
import { WorkspaceOutbound } from '../../../src/services/installs/per-workspace.js';
import type { SharedBudgets } from '../../../src/services/slack-out/outbound/index.js';
import { openPglite, SqlStore } from '../../../src/store/index.js';
import { currentWorkspace, inWorkspace, type Workspace } from '../../../src/workspace.js';
import { logger, metrics } from '../../fakes.js';

/** Lets every promise that can settle now settle (the queue's loop runs between awaits). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const ws = (key: string): Workspace => ({ teamId: key, key, isEnterpriseInstall: false, isolated: true });
const T1 = ws('T1');
const T2 = ws('T2');

// A Web API that answers every call with the token it was sent, so a test sees which token went.
let server: Server;
let apiUrl: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, url: (req.headers.authorization ?? '').replace('Bearer ', '') }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

describe('the Web API client of many workspaces', () => {
  const tokens = { T1: 'xoxb-one', T2: 'xoxb-two' } as Record<string, string>;
  const client = () =>
    new WorkspaceClient(async (w) => tokens[w.key] ?? 'none', {
      slackApiUrl: apiUrl,
      retryConfig: { retries: 0 },
    });

  it("each call goes with the current workspace's token; a call for no workspace is refused", async () => {
    const slack = client();
    const [one, two] = await Promise.all([
      inWorkspace(T1, () => slack.auth.test()),
      inWorkspace(T2, () => slack.auth.test()),
    ]);
    expect([one.url, two.url]).toEqual(['xoxb-one', 'xoxb-two']);
    await expect(slack.auth.test()).rejects.toBeInstanceOf(NoWorkspaceError);
  });

  it("a client for one workspace uses its token whatever the current work's is", async () => {
    const slack = client().forWorkspace(T2);
    expect((await inWorkspace(T1, () => slack.auth.test())).url).toBe('xoxb-two');
    expect((await slack.auth.test()).url).toBe('xoxb-two');
  });
});

describe('per-workspace queues', () => {
  it('a call waits in its own workspace’s queue and runs as that workspace’s work', async () => {
    const clock = new ManualClock(0);
    const queue = new WorkspaceOutbound(logger, metrics(), { postPerSecond: 1, postBurst: 1, clock });
    const ran: string[] = [];
    const post = (tag: string) => ({
      channel: 'C1',
      priority: 'chatter' as const,
      method: 'chat.postMessage' as const,
      run: async () => {
        ran.push(`${tag}@${currentWorkspace()?.key}`);
      },
    });
    // T1 spends its only post token; T2's post, in a channel of the same id, is not held by it.
    const all = [
      inWorkspace(T1, () => queue.run(post('a'))),
      inWorkspace(T1, () => queue.run(post('b'))),
      inWorkspace(T2, () => queue.run(post('c'))),
    ];
    await settle();
    expect([...ran].sort()).toEqual(['a@T1', 'c@T2']);
    await clock.advance(1_000);
    await Promise.all(all);
    expect(ran).toContain('b@T1');
    expect([...queue.depths().keys()].every((lane) => lane.startsWith('T1/') || lane.startsWith('T2/'))).toBe(
      true,
    );
  });

  it("cancels a tag's waiting turn in whichever workspace's queue it waits", async () => {
    const clock = new ManualClock(0);
    const queue = new WorkspaceOutbound(logger, metrics(), { postPerSecond: 1, postBurst: 1, clock });
    const call = (kind: 'post' | 'turn', tag: string) => ({
      channel: 'C1',
      priority: 'chatter' as const,
      method: 'chat.postMessage' as const,
      ...(kind === 'turn' ? { turn: true as const } : {}),
      tag,
      run: async () => {},
    });
    // T1's only token goes to a post: its session's turn waits behind it.
    await inWorkspace(T1, () => queue.run(call('post', 'other')));
    const turn = inWorkspace(T1, () => queue.run(call('turn', 'sess_1')));
    await settle();
    expect(queue.cancelTurns('C1', 'sess_1', new Error('carried'))).toBe(1);
    await expect(turn).rejects.toThrow('carried');
  });

  it("spends each workspace's own rows of the shared budgets", async () => {
    const keys: string[] = [];
    const shared: SharedBudgets = {
      take: async (key) => {
        keys.push(key);
        return 0;
      },
      pause: async () => {},
      // Each answered post corrects its workspace's own row too.
      landed: async (key) => {
        keys.push(key);
      },
    };
    const queue = new WorkspaceOutbound(logger, metrics(), { shared });
    const call = {
      channel: 'C1',
      priority: 'urgent' as const,
      method: 'chat.postMessage' as const,
      run: async () => 1,
    };
    await inWorkspace(T1, () => queue.run(call));
    await inWorkspace(T2, () => queue.run(call));
    expect(keys.some((k) => k.startsWith('T1:'))).toBe(true);
    expect(keys.some((k) => k.startsWith('T2:'))).toBe(true);
    expect(keys.every((k) => /^T[12]:/.test(k))).toBe(true);
  });
});

describe('the install flow’s state', () => {
  it('is good once, and a state this app did not sign is refused before the store is asked', async () => {
    const store = await SqlStore.open(await openPglite(undefined));
    try {
      const states = storedStates(store.installations, 'a-state-secret-for-tests');
      const state = await states.generateStateParam({ scopes: ['commands'] }, new Date());
      expect(await states.verifyStateParam(new Date(), state)).toEqual({ scopes: ['commands'] });
      await expect(states.verifyStateParam(new Date(), state)).rejects.toBeInstanceOf(InvalidStateError);
      const [value] = state.split('.');
      await expect(states.verifyStateParam(new Date(), `${value}.forged`)).rejects.toThrow(/not issued/);
      const other = storedStates(store.installations, 'another-secret-entirely');
      const theirs = await other.generateStateParam({ scopes: [] }, new Date());
      await expect(states.verifyStateParam(new Date(), theirs)).rejects.toThrow(/not issued/);
    } finally {
      await store.close();
    }
  });
});
