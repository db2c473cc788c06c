import { validateBlocks } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import {
  agentMessageText,
  defuseMentions,
  layoutText,
  MARKDOWN_MAX,
  MAX_SPLIT_PARTS,
  SECTION_MAX,
} from '../../src/blocks/agent-message.js';
import { finalReport, unreadableRequest } from '../../src/blocks/report.js';

const opts = { showReasoning: false };

describe('agentMessageText', () => {
  it('shows assistant text as mrkdwn, escaped, with Markdown turned into Slack’s', () => {
    const text = agentMessageText(
      { role: 'assistant', content: '**Done** <b> & see [docs](https://x.io/d)' },
      opts,
    );
    expect(text?.mrkdwn).toBe('*Done* &lt;b&gt; &amp; see docs (<https://x.io/d|x.io>)');
    expect(text?.plain).toBe('**Done** <b> & see [docs](https://x.io/d)');
  });

  it('summarizes tool calls and results, saying how much was left out', () => {
    const call = agentMessageText(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ function: { name: 'search', arguments: 'x'.repeat(400) } }],
      },
      opts,
    );
    expect(call?.mrkdwn).toMatch(/^🔧 `search` `x{300}… \(100 more characters not shown\)`$/);
    const result = agentMessageText({ role: 'tool', name: 'search', content: 'y'.repeat(600) }, opts);
    expect(result?.mrkdwn).toContain('(100 more characters not shown)');
  });

  it('leaves human-input requests to the prompt, in both wire shapes', () => {
    expect(
      agentMessageText({ role: 'assistant', name: 'human_input_needed', content: '{}' }, opts),
    ).toBeUndefined();
    expect(
      agentMessageText(
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ function: { name: 'human_input_needed', arguments: '{}' } }],
        },
        opts,
      ),
    ).toBeUndefined();
  });

  it('never throws or drops a message missing its role or content, or with content null beside tool calls', () => {
    const call = { function: { name: 'search', arguments: '{"q":"x"}' } };
    expect(agentMessageText({ content: null, toolCalls: [call] }, opts)?.mrkdwn).toBe(
      '🔧 `search` `{"q":"x"}`',
    );
    expect(agentMessageText({ role: 'assistant', toolCalls: [call] }, opts)?.mrkdwn).toBe(
      '🔧 `search` `{"q":"x"}`',
    );
    expect(agentMessageText({ content: 'Hello' }, opts)?.mrkdwn).toBe('_agent:_ Hello');
    expect(agentMessageText({ role: 'tool', content: null }, opts)?.mrkdwn).toBe('↳ `tool` returned nothing');
    expect(
      agentMessageText({ role: 'assistant', content: [{ type: 'text', text: 'hi' }] }, opts)?.plain,
    ).toContain('"text": "hi"');
    expect(
      agentMessageText({ role: 'assistant', toolCalls: [null, 'ping', { name: 'flat', arguments: 1 }] }, opts)
        ?.mrkdwn,
    ).toBe('🔧 `ping`\n🔧 `flat` `1`');
    expect(agentMessageText({ role: 42, content: 'x', tool_calls: [{ name: 'snake' }] }, opts)?.mrkdwn).toBe(
      'x\n🔧 `snake`',
    );
    expect(agentMessageText({}, opts)).toBeUndefined();
  });

  it('shows reasoning only when asked to, and people’s messages as theirs', () => {
    const m = { role: 'assistant', content: 'Answer', reasoning: 'Because' };
    expect(agentMessageText(m, opts)?.mrkdwn).toBe('Answer');
    expect(agentMessageText(m, { showReasoning: true })?.mrkdwn).toBe('💭 _Because_\nAnswer');
    expect(agentMessageText({ role: 'user', content: 'Go left' }, opts)?.mrkdwn).toBe('👤 Go left');
    expect(agentMessageText({ role: 'critic', content: 'Hmm' }, opts)?.mrkdwn).toBe('_critic:_ Hmm');
    expect(agentMessageText({ role: 'assistant', content: '   ' }, opts)).toBeUndefined();
  });
});

describe('layoutText', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

  it('keeps short text in one valid message', () => {
    const laid = layoutText({ mrkdwn: 'hello', plain: 'hello' }, 'stem');
    expect(laid).toMatchObject({ kind: 'text', parts: [{ text: 'hello' }] });
    if (laid.kind === 'text') expect(validateBlocks(laid.parts[0]?.blocks, 'message')).toEqual([]);
  });

  it('splits longer text into labelled parts that lose nothing', () => {
    const text = words(900); // ~8,000 characters
    const laid = layoutText({ mrkdwn: text, plain: text }, 'stem');
    if (laid.kind !== 'text') throw new Error('expected text parts');
    expect(laid.parts.length).toBeGreaterThan(1);
    expect(laid.parts.length).toBeLessThanOrEqual(MAX_SPLIT_PARTS);
    laid.parts.forEach((part, i) => {
      expect(part.text.length).toBeLessThanOrEqual(SECTION_MAX);
      expect(part.text.endsWith(`_(part ${i + 1} of ${laid.parts.length})_`)).toBe(true);
      expect(validateBlocks(part.blocks, 'message')).toEqual([]);
    });
    const joined = laid.parts.map((p) => p.text.replace(/\n_\(part \d+ of \d+\)_$/, '')).join('');
    expect(joined).toBe(text);
  });

  it('uploads what would take more than four messages, as the unescaped text', () => {
    const plain = `# Report <all> & more\n${words(3000)}`;
    const laid = layoutText({ mrkdwn: plain.replace(/</g, '&lt;'), plain }, 'agent-s1-abc');
    expect(laid).toMatchObject({ kind: 'file', filename: 'agent-s1-abc.md', content: plain });
    if (laid.kind === 'file')
      expect(laid.comment).toMatch(/too long for a message.*\n> # Report &lt;all&gt; &amp; more/);
  });
});

describe('finalReport and unreadableRequest', () => {
  it('shows a summary-and-details report with the cost and rounds', () => {
    const report = finalReport({
      status: 'completed',
      completionReport: {
        summary: 'Shipped <v2>',
        details: ['one', 'two'],
        rounds: 2,
        totalCost: 0.1,
        url: 'x',
      },
      cost: { totalCost: 0.1234 },
      rounds: [{}, {}],
    });
    expect(report.mrkdwn).toBe(
      '*✅ Ended · Completed*\nShipped &lt;v2&gt;\n• one\n• two\n```{\n  "url": "x"\n}```\n_cost $0.123 · 2 rounds_',
    );
  });

  it('shows any other report shape whole, and the error of a failed session', () => {
    expect(finalReport({ status: 'complete', completionReport: ['a'] }).plain).toContain('```[\n  "a"\n]```');
    expect(finalReport({ status: 'completed', completionReport: { ok: 1 } }).plain).toContain('"ok": 1');
    const failed = finalReport({ status: 'error', error: 'boom <x>' });
    expect(failed.mrkdwn).toContain('Error: boom &lt;x&gt;');
    expect(finalReport({ status: 'failed' }).plain).toContain('gave no error message');
  });

  it('never drops a request it cannot read', () => {
    const shown = unreadableRequest('no inputId', { kind: 'approval', prompt: 'Ship?' });
    expect(shown.plain).toContain('"prompt": "Ship?"');
    expect(shown.mrkdwn).toContain('no inputId');
  });
});

describe('the markdown block', () => {
  it('posts the agent’s Markdown in a markdown block, its link showing its host, with a plain fallback', () => {
    const text = agentMessageText(
      { role: 'assistant', content: '## Plan\n**Bold** <b> & [docs](https://x.io)' },
      opts,
    );
    const laid = layoutText(text as NonNullable<typeof text>, 'stem');
    expect(laid).toEqual({
      kind: 'text',
      parts: [
        {
          text: '## Plan\n**Bold** &lt;b&gt; &amp; [docs](https://x.io)',
          blocks: [{ type: 'markdown', text: '## Plan\n**Bold** <\u2060b> & docs ([x.io](https://x.io/))' }],
        },
      ],
    });
    expect(validateBlocks(laid.kind === 'text' ? laid.parts[0]?.blocks : [], 'message')).toEqual([]);
  });

  it('splits below the per-message markdown limit, then uploads a file', () => {
    const long = (n: number) =>
      agentMessageText({ role: 'assistant', content: 'word '.repeat(n).trim() }, opts) as NonNullable<
        ReturnType<typeof agentMessageText>
      >;
    const split = layoutText(long(4_000), 's');
    expect(split.kind).toBe('text');
    if (split.kind !== 'text') return;
    expect(split.parts.length).toBe(2);
    for (const part of split.parts) {
      const md = part.blocks[0] as { type: string; text: string };
      expect(md.type).toBe('markdown');
      expect(md.text.length).toBeLessThanOrEqual(MARKDOWN_MAX);
      expect(validateBlocks(part.blocks, 'message')).toEqual([]);
    }
    expect(layoutText(long(12_000), 's').kind).toBe('file');
  });

  it('never pings: broadcasts, user groups and people become look-alike text, in markdown and mrkdwn', () => {
    const content =
      'Heads up <!channel> and <!here|here>, @channel @here @everyone, <!subteam^S0APPROVERS|@approvers> and <@U0BOB> <@W0X|bob>; mail a@channel.io';
    const text = agentMessageText({ role: 'assistant', content }, opts) as NonNullable<
      ReturnType<typeof agentMessageText>
    >;
    for (const out of [text.markdown ?? '', text.mrkdwn, defuseMentions(content)]) {
      expect(out).not.toMatch(/<!|<@|(^|[^\w\u2060])@(channel|here|everyone)\b/);
      expect(out).toContain('@\u2060approvers');
    }
    expect(text.markdown).toContain('a@channel.io');
    const laid = layoutText(text, 's');
    expect(laid.kind === 'text' && laid.parts[0]?.text).not.toMatch(/<!|<@|(^|\s)@(channel|here)\b/);
  });

  it('the final report ends with Slack’s feedback buttons', () => {
    const report = finalReport({ status: 'completed', completionReport: { summary: 'Done @here' } });
    const laid = layoutText(report, 's');
    if (laid.kind !== 'text') throw new Error('a short report is a message');
    const last = laid.parts[laid.parts.length - 1];
    expect(last?.blocks.at(-1)).toMatchObject({
      type: 'context_actions',
      elements: [{ type: 'feedback_buttons', action_id: 'session_feedback' }],
    });
    expect(validateBlocks(last?.blocks, 'message')).toEqual([]);
    expect(report.mrkdwn).not.toMatch(/(^|\s)@here\b/);
  });
});
