/**
 * What the agent surface sends of someone else's text, besides the builders of blocks/index.ts: stream
 * chunks (chat.startStream / appendStream / stopStream) and their classic form, the plan's title, and a
 * session's title (agents.sessions.setStatus and rename). Each output is marked as Slack reads it: a
 * stream's markdown and every title are checked as a markdown block (as written and decoded).
 */
import { chunksFor, pieceAsMessage, streamPiecesOf } from '../../src/blocks/stream-chunks.js';
import { streamStart } from '../../src/blocks/stream-plan.js';
import { sessionTitle } from '../../src/services/slack-out/agent-surface/agent-status.js';

type Output = { name: string; output: unknown };

/** Messages of every role and shape the stream renders, all worded by `t`. */
const streamedMessages = (t: string): Array<Record<string, unknown>> => [
  { role: 'assistant', content: `a ${t} b`, reasoning: t },
  { role: 'user', content: t },
  { role: t, content: t },
  { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: t, arguments: { q: t } }] },
  { role: 'tool', name: t, toolCallId: 'c1', content: t },
  { role: 'tool', name: 'x', toolCallId: 'c2', content: `Error: ${t}` },
];

/** A chunk as Slack reads it: markdown_text is a markdown block's text; a task's words are markdown too. */
const asRead = (chunk: { type: string; text?: string }): unknown =>
  chunk.type === 'markdown_text' ? { type: 'markdown', text: chunk.text } : { ...chunk, type: 'markdown' };

/** Every stream chunk and classic fallback made of `t`. */
export const streamOutputs = (t: string): Output[] =>
  streamedMessages(t).flatMap((message, i) => {
    const pieces = streamPiecesOf(message, { showReasoning: true, fallbackId: 'r#0' });
    return [
      { name: `stream chunks#${i}`, output: chunksFor(pieces, {}).chunks.map(asRead) },
      { name: `stream as classic#${i}`, output: pieces.map(pieceAsMessage) },
    ];
  });

/** Every title made of `t`: the plan's (first and continued) and the session's. */
export const titleOutputs = (t: string): Output[] => [
  ...[false, true].map((continued) => ({
    name: `plan title${continued ? ' continued' : ''}`,
    output: streamStart('plan', t, continued).lead.map((chunk) => ({ ...chunk, type: 'markdown' })),
  })),
  { name: 'session title', output: { type: 'markdown', text: sessionTitle(t) } },
];
