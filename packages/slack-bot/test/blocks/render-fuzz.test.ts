import { validateBlocks } from '@agent-sessions/slack-sandbox';
import type { KnownBlock } from '@slack/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { channelMessageText, channelSummary, reportCanvas } from '../../src/blocks/code-channel.js';
import {
  agentMessageText,
  defuseMentions,
  escapeMrkdwn,
  FALLBACK_MAX,
  finalReport,
  layoutText,
  MARKDOWN_MAX,
  MAX_SPLIT_PARTS,
  type MessageText,
  markdownToMrkdwn,
  promptMessage,
  RENDER_MAX,
  type Rendered,
  SECTION_MAX,
  type SlackMessage,
  safeMrkdwn,
  sessionCard,
  unreadableRequest,
} from '../../src/blocks/index.js';
import { mrkdwnLinkOf } from '../../src/blocks/links.js';
import {
  chunksFor,
  PIECE_MAX_CHARS,
  pieceAsMessage,
  STREAM_MAX_CHARS,
  streamPiecesOf,
} from '../../src/blocks/stream-chunks.js';
import { plainParts } from '../../src/services/slack-out/thread/thread-layout.js';
import { streamOutputs, titleOutputs } from './agent-surface-builders.js';
import { allOutputs, OWN_MENTIONS, STARTER } from './foreign-text-builders.js';
import { isHonest, linksIn } from './link-check.js';
import { unexpectedPings } from './ping-check.js';

// Agent text is untrusted; every renderer must take any shape, at any size, without throwing
// or pinging. (How long they take is the benchmark's job: bench/render.)

/** The shapes that made the old regexes backtrack, and their neighbours. */
const SHAPES = [
  '[',
  '(',
  '<!',
  '<@',
  '*',
  '_',
  '`',
  '|',
  '**',
  '](',
  '[a](http://',
  '[a](https://x',
  '<!subteam^S1|',
  '<@U1|',
  '<!here|',
  '# ',
  '#\n',
  '\\<@',
  '&lt;!',
  '> ',
  '```',
  '@here',
];

/** Text built of long runs of the shapes, nested brackets, and ordinary words between them. */
const adversarial = (maxRun: number) =>
  fc
    .array(
      fc.oneof(
        fc
          .tuple(fc.constantFrom(...SHAPES), fc.integer({ min: 1, max: maxRun }))
          .map(([s, n]) => s.repeat(n)),
        fc
          .integer({ min: 1, max: 50 })
          .map((depth) => `${'['.repeat(depth)}x${']('.repeat(depth)}http://y${')'.repeat(depth)}`),
        fc.constantFrom(
          '<!channel>',
          '<!here|h>',
          '<@U1>',
          '<@W1|bob>',
          '<!subteam^S1|@team>',
          ' word ',
          '\n',
          '\n\n',
        ),
        fc.string({ maxLength: 40 }),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(''));

const stringsOf = (rendered: Rendered): string[] =>
  rendered.kind === 'file' ? [rendered.comment] : rendered.parts.map((p) => JSON.stringify(p));

/** A rendered message keeps Slack's limits and everything the agent said (in parts or in the file). */
function checkLayout(text: MessageText, rendered: Rendered) {
  expect(unexpectedPings(rendered, OWN_MENTIONS)).toEqual([]);
  if (rendered.kind === 'file') {
    expect(rendered.content).toBe(text.plain);
    return;
  }
  for (const part of rendered.parts) expect(validateBlocks(part.blocks, 'message')).toEqual([]);
}

/** The messages (text and blocks) in a builder's output, as the thread poster would send them. */
function messagesIn(output: unknown): Array<{ text: string; blocks?: KnownBlock[] }> {
  const one = output as { kind?: string; parts?: unknown; text?: unknown; blocks?: unknown };
  if (one?.kind === 'text' && Array.isArray(one.parts)) return one.parts as SlackMessage[];
  if (Array.isArray(output)) return output.flatMap(messagesIn);
  if (typeof one?.text === 'string' && Array.isArray(one.blocks)) return [one as SlackMessage];
  return [];
}

/** A report that pings the whole origin channel and shows one address while opening another. */
const HOSTILE =
  '<!channel> <https://evil.example|https://sso.corp.example> [Open the SSO page](https://evil.example) ![](@U0CFO) ![](#C0GENERAL) @here ';

/** Every limit a text crosses on its way to Slack. */
const LIMITS = [
  FALLBACK_MAX,
  SECTION_MAX,
  PIECE_MAX_CHARS,
  MARKDOWN_MAX,
  STREAM_MAX_CHARS,
  MAX_SPLIT_PARTS * MARKDOWN_MAX,
  RENDER_MAX,
];
/**
 * Each limit's two sides, and a megabyte: no limit, so one side of it is enough (past RENDER_MAX, the
 * same paths as 48,001 characters, on a text twenty times longer).
 */
const SIZES = [...LIMITS.flatMap((limit) => [limit - 1, limit + 1]), 1_000_001];

/** Nothing in it pings, and every link shows where it goes. */
function expectSafe(name: string, value: unknown) {
  expect({ name, pings: unexpectedPings(value, OWN_MENTIONS) }).toEqual({ name, pings: [] });
  expect({ name, links: linksIn(value).filter((l) => !isHonest(l)) }).toEqual({ name, links: [] });
}

describe('renderers on adversarial text (fuzz)', () => {
  it.each(SIZES)(
    'a hostile report of %i characters, on every path that posts it, pings nobody and links honestly',
    (size) => {
      const text = HOSTILE.repeat(Math.ceil(size / HOSTILE.length)).slice(0, size);
      const session = { status: 'completed', completionReport: { summary: text } };
      const report = finalReport(session);
      const paths: Array<[string, Rendered]> = [
        ['thread report', layoutText(report, 'report')],
        ['channel summary', layoutText(channelSummary('C0CODE', report), 'summary')],
      ];
      for (const role of ['assistant', 'tool']) {
        const message = {
          role,
          name: 'search',
          content: text,
          toolCalls: [{ name: 'search', arguments: text }],
        };
        const classic = agentMessageText(message, { showReasoning: false });
        const inChannel = channelMessageText(message, { showReasoning: false, fallbackId: 'm' });
        if (classic) paths.push([`${role} message`, layoutText(classic, 'stem')]);
        if (inChannel) paths.push([`${role} message in a channel`, layoutText(inChannel, 'stem')]);
        const pieces = streamPiecesOf(message, { showReasoning: false, fallbackId: 'm' });
        expectSafe(
          `${role} stream`,
          chunksFor(pieces, {}).chunks.map((c) => ({ ...c, type: 'markdown' })),
        );
        expectSafe(`${role} stream as classic`, pieces.map(pieceAsMessage));
      }
      for (const [name, rendered] of paths) {
        expectSafe(name, rendered);
        for (const message of messagesIn(rendered)) {
          expect(validateBlocks(message.blocks ?? [], 'message')).toEqual([]);
          expectSafe(`${name}, as text`, plainParts(message).parts);
        }
      }
      expectSafe('canvas', { type: 'markdown', text: reportCanvas(text, session) });
    },
  );

  it('agentMessageText + layoutText: any shape renders, within Slack’s limits, and pings nobody', () => {
    fc.assert(
      fc.property(
        adversarial(3000),
        fc.constantFrom('assistant', 'tool', 'user', 'critic'),
        (content, role) => {
          const text = agentMessageText({ role, content, reasoning: content }, { showReasoning: true });
          if (text) checkLayout(text, layoutText(text, 'stem'));
          const report = finalReport({ status: 'completed', completionReport: { summary: content } });
          checkLayout(report, layoutText(report, 'stem'));
          const raw = unreadableRequest(content, { content });
          checkLayout(raw, layoutText(raw, 'stem'));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('every other path takes the same text without throwing or pinging, and so do their text fallbacks', () => {
    fc.assert(
      fc.property(adversarial(400), (t) => {
        for (const { name, output } of [...allOutputs(t), ...streamOutputs(t), ...titleOutputs(t)]) {
          expect({ name, pings: unexpectedPings(output, OWN_MENTIONS) }).toEqual({ name, pings: [] });
          for (const message of messagesIn(output)) {
            const fallback = plainParts(message).parts;
            expect({ name, fallback: unexpectedPings(fallback, OWN_MENTIONS) }).toEqual({
              name,
              fallback: [],
            });
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  // Each shape a little past the cap: enough to go out as a file, as a megabyte would. A megabyte of every
  // shape is bench:render's (time per kilobyte, 1 KB to 1 MB); the hostile report above takes 1,000,001
  // characters through every path here.
  it.each(SHAPES)(
    'a run of %s past the render cap goes out as a file, unrendered, its first line safe in the comment',
    (shape) => {
      const content = shape.repeat(Math.ceil((RENDER_MAX + 100) / shape.length));
      const text = agentMessageText({ role: 'assistant', content }, { showReasoning: false });
      expect(text?.plain).toBe(content.trim());
      expect(text?.mrkdwn).toBe('');
      const rendered = layoutText(text as MessageText, 'stem');
      expect(rendered).toMatchObject({ kind: 'file', content: content.trim() });
      expect(stringsOf(rendered).flatMap((s) => unexpectedPings(s))).toEqual([]);
      // The escapers themselves take the whole text too (prompts, reports and cards run them on whole texts).
      expect(unexpectedPings({ type: 'markdown', text: defuseMentions(content) })).toEqual([]);
      expect(unexpectedPings([safeMrkdwn(content), escapeMrkdwn(content)])).toEqual([]);
      expect(markdownToMrkdwn(escapeMrkdwn(content)).length).toBeGreaterThan(0);
      const prompt = promptMessage(
        { inputId: 'in_1', kind: 'approval', prompt: content, raw: {} },
        { sessionId: 's', startedBy: STARTER },
      );
      expect(unexpectedPings(prompt, OWN_MENTIONS)).toEqual([]);
      expect(validateBlocks(prompt.blocks, 'message')).toEqual([]);
      const report = finalReport({ status: content, error: content, completionReport: content });
      expect(layoutText(report, 'r').kind).toBe('file');
      const card = sessionCard({
        sessionId: 's',
        goal: content,
        status: content,
        startedBy: STARTER,
        totalCost: 0,
        budget: null,
        rounds: 0,
        createdAt: '2026-11-22T12:00:00.000Z',
        now: Date.parse('2026-11-22T12:01:00.000Z'),
        currentStep: content,
      });
      expect(unexpectedPings(card, OWN_MENTIONS)).toEqual([]);
    },
  );

  it('text just over the cap is a file; just under it is rendered', () => {
    const words = (n: number) => 'word '.repeat(n / 5);
    const over = agentMessageText(
      { role: 'assistant', content: `${words(RENDER_MAX)}xy` },
      { showReasoning: false },
    );
    expect(over?.mrkdwn).toBe('');
    expect(layoutText(over as MessageText, 's').kind).toBe('file');
    const under = agentMessageText(
      { role: 'assistant', content: words(RENDER_MAX - 5) },
      { showReasoning: false },
    );
    expect(under?.markdown?.length).toBeGreaterThan(RENDER_MAX - 100);
  });
});

// The old passes, as regexes: the scanners must give the same output on text people write. (The one
// deliberate change: a `#` line with no words stays as written; the old `\s+` bolded the next line.)
const referenceMarkdown = (escaped: string) =>
  escaped
    .replace(/\*\*(.+?)\*\*/g, '*$1*')
    .replace(/^#{1,6}[^\S\n\r\u2028\u2029]+(\S.*)$/gm, '*$1*')
    .replace(
      /\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g,
      (whole, label: string, target: string) => mrkdwnLinkOf(label, target) ?? whole,
    );

const J = '\u2060';
const referenceDefuse = (text: string) =>
  text
    .replace(
      /<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_m, id: string, label?: string) => `@${J}${label ? label.replace(/^@/, '') : id}`,
    )
    .replace(/<!(channel|here|everyone)(?:\|[^>]*)?>/g, `@${J}$1`)
    .replace(/<@([UW][A-Z0-9]+)(?:\|([^>]*))?>/g, (_m, id: string, label?: string) => `@${J}${label ?? id}`)
    .replace(/<!([^>]*)>/g, `!${J}$1`)
    .replace(/(^|[^\w\u2060])@(channel|here|everyone)\b/gi, `$1@${J}$2`);

describe('the linear scanners match the old regexes on ordinary text', () => {
  it('markdownToMrkdwn (property)', () => {
    const piece = fc.constantFrom(
      '**',
      '*',
      '#',
      '## ',
      '# ',
      ' ',
      '\n',
      '\r\n',
      'a',
      'word',
      '[',
      ']',
      '(',
      ')',
      '](',
      'http://x.io/a',
      'https://y',
      '\t',
      '&amp;',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(markdownToMrkdwn(text)).toBe(referenceMarkdown(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('defuseMentions (property)', () => {
    const piece = fc.constantFrom(
      '<!channel>',
      '<!here|here>',
      '<!everyone>',
      '<!subteam^S0A|@team>',
      '<!subteam^S0B>',
      '<@U0BOB>',
      '<@W0X|bob>',
      '<!date^1392734382^{date_short}|Feb 18>',
      '@channel',
      '@here',
      'a@here.io',
      ' ',
      '\n',
      'words',
      ', ',
      '<b>',
      'x > y',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const text = pieces.join('');
        expect(defuseMentions(text)).toBe(referenceDefuse(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the examples of today’s output', () => {
    expect(markdownToMrkdwn('# Title\n**bold** and [docs](https://x.io/d)')).toBe(
      '*Title*\n*bold* and docs (<https://x.io/d|x.io>)',
    );
    const nested = '[[nested]](http://a) [](http://b) [x](ftp://c) [a\nb](http://d)';
    expect(markdownToMrkdwn(`${nested} [[a](http://e)`)).toBe(`${nested} [a (<http://e/|e>)`);
    expect(markdownToMrkdwn(nested)).toBe(referenceMarkdown(nested));
    expect(defuseMentions('<@U1|<!here> x>')).not.toMatch(/<[!@]/);
  });
});
