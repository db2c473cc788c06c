import { describe, expect, it, vi } from 'vitest';
import { sandboxWebClient } from '../support/world.js';
import { useBotProcesses } from './bot-process.js';
import { scratchDatabase } from './database.js';
import { ALICE, CHANNEL, textOf, WAIT_MS } from './harness.js';

// A finished session has no lease: what it left (posts recorded and never sent, its final card edit that
// a short grace or a Slack error left undone) is sent by the replica holding its claim in the store. Here
// the holder dies mid-way, its posts lost on the way and its card edit refused: the other replica, running,
// takes the claim once it lapsed, at its next recovery pass, and sends each thing once.
describe('a finished session’s leftovers, their claim holder killed', () => {
  const database = scratchDatabase('bot_leftovers');
  const world = useBotProcesses({ emulatorSpeed: 3, sandbox: { rateLimits: false }, store: { database } });

  it('the other replica sends each unsent post and the final card owed, once', async () => {
    const env = (id: string) => world.env({ REPLICA_ID: id, LEASE_TTL_SECONDS: '2' });
    // A replica that ran before: the schema is in place, and it is gone.
    const before = await world.spawn(env('replica-before'));
    await before.kill('SIGTERM');
    const ws = world.sandbox.workspace;
    const card = await sandboxWebClient(world.sandbox).chat.postMessage({
      channel: CHANNEL,
      text: 'Running: deploy v2',
    });
    const cardTs = String(card.ts);
    await database.query(
      `INSERT INTO sessions (session_id, channel_id, card_ts, started_by, goal, status, budget, finished)
       VALUES ('sess_left', '${CHANNEL}', '${cardTs}', '${ALICE}', 'deploy v2', 'completed', 5, true)`,
    );
    for (const i of [1, 2, 3])
      await database.query(
        `INSERT INTO posted_messages (session_id, key, body)
         VALUES ('sess_left', 'msg:r1#${i}', '${JSON.stringify({ text: `Left unsent ${i}.` })}')`,
      );
    const finalCard = {
      channel: CHANNEL,
      ts: cardTs,
      text: 'Completed: deploy v2',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Completed*: deploy v2' } }],
    };
    await database.query(
      `INSERT INTO final_cards (session_id, card) VALUES ('sess_left', '${JSON.stringify(finalCard)}')`,
    );
    const calls = (method: string) => ws.apiCalls.filter((c) => c.method === method);

    // The first replica claims them: its posts lose their connection, and Slack refuses its card edit.
    world.sandbox.failNext({ method: 'chat.postMessage', drop: true, times: 100, channel: CHANNEL });
    world.sandbox.failNext({ method: 'chat.update', error: 'internal_error', channel: CHANNEL });
    const holder = await world.spawn(env('replica-holder'));
    await vi.waitFor(
      () => {
        if (!calls('chat.postMessage').some((c) => c.status === 0)) throw new Error('no post tried yet');
        if (!calls('chat.update').some((c) => !c.ok)) throw new Error('no card edit tried yet');
      },
      { timeout: WAIT_MS, interval: 100 },
    );
    const [claim] = await database.query<{ holder: string }>('SELECT holder FROM recovery_claims');
    expect(claim?.holder).toBe('replica-holder');
    await holder.kill('SIGKILL');
    world.sandbox.faults.clear();

    const updatesBefore = calls('chat.update').filter((c) => c.ok).length;
    await world.spawn(env('replica-next'));
    await vi.waitFor(
      async () => {
        const [left] = await database.query<{ unsent: string; cards: string }>(
          `SELECT (SELECT count(*) FROM posted_messages WHERE ts IS NULL) AS unsent,
                  (SELECT count(*) FROM final_cards) AS cards`,
        );
        if (Number(left?.unsent) > 0 || Number(left?.cards) > 0)
          throw new Error(`still owed: ${JSON.stringify(left)}`);
      },
      { timeout: WAIT_MS, interval: 100 },
    );
    const thread = ws.replies(CHANNEL, cardTs).map(textOf).join('\n');
    for (const i of [1, 2, 3]) expect(thread.split(`Left unsent ${i}.`)).toHaveLength(2);
    expect(calls('chat.update').filter((c) => c.ok).length - updatesBefore).toBe(1);
    expect(textOf(ws.findMessage(CHANNEL, cardTs))).toContain('Completed');
  });
});
