import type { SandboxMessage } from '@agent-sessions/slack-sandbox';
import type { SandboxWorld } from '../../../../../../test/support/world.js';
import type { MessageText } from '../../../../src/blocks/agent-message.js';

/**
 * Sessions' threads in one channel of the sandbox, as the posters' tests use them: `thread()` posts a new
 * session's card (its ids prefixed so each file's are its own) and gives its place; `replies` reads a
 * thread back from the sandbox.
 */
export function cardThreads(world: SandboxWorld, channelId: string, prefix: string) {
  let count = 0;
  return {
    thread: async () => {
      const sessionId = `sess_${prefix}${++count}`;
      const card = await world.slack.chat.postMessage({ channel: channelId, text: `card of ${sessionId}` });
      return { sessionId, channelId, cardTs: String(card.ts) };
    },
    replies: (cardTs: string) => world.sandbox.workspace.replies(channelId, cardTs),
  };
}

/** Agent text that reads the same in mrkdwn and plain. */
export const text = (s: string): MessageText => ({ mrkdwn: s, plain: s });

/** The keys a thread's posts carry in their metadata, in order (a batch's post lists each of its own). */
export const postKeys = (messages: SandboxMessage[]): string[] =>
  messages.flatMap((m) => {
    const payload = (m.metadata as { event_payload?: { key?: string; keys?: string } } | undefined)
      ?.event_payload;
    if (typeof payload?.keys === 'string') return JSON.parse(payload.keys) as string[];
    return typeof payload?.key === 'string' ? [payload.key] : [];
  });
