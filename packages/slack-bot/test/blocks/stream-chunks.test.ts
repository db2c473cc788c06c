import { describe, expect, it } from 'vitest';
import {
  chunksFor,
  continuationChunk,
  PIECE_MAX_CHARS,
  pieceAsMessage,
  pieceChars,
  shownText,
  showsPieces,
  streamPiecesOf,
} from '../../src/blocks/stream-chunks.js';
import { PING_PAYLOADS as PAYLOADS, pingsIn } from './ping-check.js';

const pieces = (message: Record<string, unknown>, showReasoning = false) =>
  streamPiecesOf(message, { showReasoning, fallbackId: 'r1#0' });

const call = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe('a round of the agent as stream pieces', () => {
  it("the agent's text is markdown, a paragraph of its own", () => {
    expect(pieces({ role: 'assistant', content: 'Reading the **config**.' })).toEqual([
      { markdown: 'Reading the **config**.\n\n' },
    ]);
  });

  it('tool calls become tasks with their arguments as details, beside the text that announced them', () => {
    const out = pieces({
      role: 'assistant',
      content: 'Two files to read.',
      toolCalls: [call('c1', 'read_file', { path: 'a.ts' }), call('c2', 'read_file', { path: 'b.ts' })],
    });
    expect(out).toEqual([
      {
        markdown: 'Two files to read.\n\n',
        calls: [
          { id: 'c1', title: 'read_file', details: '{"path":"a.ts"}' },
          { id: 'c2', title: 'read_file', details: '{"path":"b.ts"}' },
        ],
      },
    ]);
  });

  it('content: null beside tool calls (as some services send it) is a task alone', () => {
    expect(pieces({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'grep' }] })).toEqual([
      { calls: [{ id: 'c1', title: 'grep' }] },
    ]);
  });

  it("a tool's result completes its task, with the result as output; a failure is an error", () => {
    expect(
      pieces({ role: 'tool', name: 'read_file', toolCallId: 'c1', content: 'export const a = 1;' }),
    ).toEqual([{ result: { id: 'c1', title: 'read_file', output: 'export const a = 1;', failed: false } }]);
    const [failed] = pieces({
      role: 'tool',
      name: 'deploy',
      toolCallId: 'c2',
      content: 'Error: no such host',
    });
    expect(failed?.result?.failed).toBe(true);
    const [flagged] = pieces({
      role: 'tool',
      name: 'deploy',
      toolCallId: 'c3',
      content: 'nope',
      isError: true,
    });
    expect(flagged?.result?.failed).toBe(true);
  });

  it('reasoning stays hidden unless asked for', () => {
    const message = { role: 'assistant', content: 'Done.', reasoning: 'Check twice.' };
    expect(pieces(message)).toEqual([{ markdown: 'Done.\n\n' }]);
    expect(pieces(message, true)).toEqual([{ markdown: '💭 _Check twice._\nDone.\n\n' }]);
  });

  it('a question is not streamed: it comes as its own prompt', () => {
    expect(pieces({ role: 'assistant', name: 'human_input_needed', content: '{"inputId":"in_1"}' })).toEqual(
      [],
    );
    expect(
      pieces({ role: 'assistant', content: '', toolCalls: [{ id: 'q', name: 'human_input_needed' }] }),
    ).toEqual([]);
  });

  it('nobody can be pinged from a stream', () => {
    const [piece] = pieces({
      role: 'assistant',
      content: 'Hey <!channel> and <@U0BOB>',
      toolCalls: [{ name: '<!here>' }],
    });
    expect(piece?.markdown).not.toContain('<!channel>');
    expect(piece?.markdown).not.toContain('<@U0BOB>');
    expect(piece?.calls?.[0]?.title).not.toContain('<!here>');
  });

  it('a text longer than a stream holds is cut into labelled pieces, nothing lost', () => {
    const long = `${'word '.repeat(5_000)}end`;
    const out = pieces({ role: 'assistant', content: long });
    expect(out.length).toBe(3);
    for (const [i, p] of out.entries()) {
      expect(p.markdown?.length).toBeLessThanOrEqual(PIECE_MAX_CHARS + 40);
      expect(p.markdown).toContain(`_(part ${i + 1} of 3)_`);
    }
    const rejoined = out.map((p) => (p.markdown ?? '').replace(/\n\n_\(part \d of 3\)_\n\n$/, '')).join('');
    expect(rejoined.replace(/\s+/g, ' ').trim()).toBe(long.replace(/\s+/g, ' ').trim());
  });
});

describe('pieces as chunks: tasks move pending → in_progress → complete / error', () => {
  const [announce] = pieces({
    role: 'assistant',
    content: 'Reading.',
    toolCalls: [call('c1', 'read_file', { path: 'a.ts' }), call('c2', 'read_file', { path: 'b.ts' })],
  });
  const [first] = pieces({ role: 'tool', name: 'read_file', toolCallId: 'c1', content: 'a' });
  const [second] = pieces({ role: 'tool', name: 'read_file', toolCallId: 'c2', content: 'Error: gone' });

  it('the first call runs, the next waits; a result completes one and starts the next', () => {
    if (!announce || !first || !second) throw new Error('pieces missing');
    const one = chunksFor([announce], {});
    expect(one.chunks).toEqual([
      { type: 'markdown_text', text: 'Reading.\n\n' },
      {
        type: 'task_update',
        id: 'c1',
        title: 'read_file',
        status: 'in_progress',
        details: '{"path":"a.ts"}',
      },
      { type: 'task_update', id: 'c2', title: 'read_file', status: 'pending', details: '{"path":"b.ts"}' },
    ]);
    const two = chunksFor([first], one.tasks);
    expect(two.chunks).toEqual([
      { type: 'task_update', id: 'c1', title: 'read_file', status: 'complete', output: 'a' },
      { type: 'task_update', id: 'c2', title: 'read_file', status: 'in_progress' },
    ]);
    const three = chunksFor([second], two.tasks);
    expect(three.chunks).toEqual([
      { type: 'task_update', id: 'c2', title: 'read_file', status: 'error', output: 'Error: gone' },
    ]);
    expect(three.tasks).toEqual({
      c1: { title: 'read_file', status: 'complete' },
      c2: { title: 'read_file', status: 'error' },
    });
  });

  it('several messages in one append give the same chunks as one after another', () => {
    if (!announce || !first || !second) throw new Error('pieces missing');
    const together = chunksFor([announce, first, second], {});
    const apart = [announce, first, second].reduce(
      (acc, p) => {
        const next = chunksFor([p], acc.tasks);
        return { chunks: [...acc.chunks, ...next.chunks], tasks: next.tasks };
      },
      chunksFor([], {}),
    );
    expect(together).toEqual(apart);
  });

  it('a result whose call came in an earlier stream is shown as a done task all the same', () => {
    if (!first) throw new Error('piece missing');
    expect(chunksFor([first], {}).chunks).toEqual([
      { type: 'task_update', id: 'c1', title: 'read_file', status: 'complete', output: 'a' },
    ]);
  });

  it('a continuation says so', () => {
    expect(continuationChunk()).toEqual({
      type: 'markdown_text',
      text: expect.stringContaining('continued'),
    });
  });

  it('characters counted as the stream shows them', () => {
    expect(pieceChars({ markdown: 'abc' })).toBe(3);
    expect(
      pieceChars({
        calls: [{ id: 'x', title: 'ab', details: 'cd' }],
        result: { id: 'y', title: 'e', output: 'fg', failed: false },
      }),
    ).toBe(7);
  });
});

describe('a piece the classic way, and found again after a crash', () => {
  it('its classic message keeps every word, escaped for mrkdwn in the fallback text', () => {
    const message = pieceAsMessage({
      markdown: 'a < b\n\n',
      calls: [{ id: 'c1', title: 'grep', details: '"x"' }],
      result: { id: 'c0', title: 'ls', output: 'one', failed: false },
    });
    expect(message.text).toContain('a &lt; b');
    expect(message.blocks).toEqual([
      { type: 'markdown', text: 'a < b\n🔧 `grep` `"x"`\n↳ `ls` returned:\n```\none\n```' },
    ]);
  });

  it('a message shows pieces when their text and tasks are in it', () => {
    const shown = shownText({
      text: 'Reading.\n\nDone.',
      blocks: [
        {
          type: 'task_card',
          task_id: 'c1',
          title: 'read_file',
          output: { type: 'rich_text', elements: [{ text: 'a' }] },
        },
      ],
    });
    expect(
      showsPieces(shown, [{ markdown: 'Done.\n\n' }, { calls: [{ id: 'c1', title: 'read_file' }] }]),
    ).toBe(true);
    expect(showsPieces(shown, [{ markdown: 'Not there.\n\n' }])).toBe(false);
  });
});

describe('nothing streamed can ping', () => {
  it.each(PAYLOADS)('%s pings nobody in a stream chunk or its classic form', (payload) => {
    const messages = [
      { role: 'assistant', content: `a ${payload} b`, reasoning: payload },
      { role: 'user', content: payload },
      { role: payload, content: payload },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: payload, arguments: { q: payload } }],
      },
      { role: 'tool', name: payload, toolCallId: 'c1', content: payload },
      { role: 'tool', name: 'x', toolCallId: 'c2', content: `Error: ${payload}` },
    ];
    for (const message of messages) {
      const pieces = streamPiecesOf(message, { showReasoning: true, fallbackId: 'r#0' });
      const { chunks } = chunksFor(pieces, {});
      // markdown_text is read as Slack reads a markdown block: decoded too.
      const asShown = chunks.map((c) =>
        c.type === 'markdown_text' ? { type: 'markdown', text: c.text } : c,
      );
      expect(pingsIn(asShown)).toEqual([]);
      expect(pingsIn(pieces.map(pieceAsMessage))).toEqual([]);
    }
  });
});
