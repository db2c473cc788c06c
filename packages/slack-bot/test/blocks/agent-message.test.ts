import { validateBlocks } from '@agent-sessions/slack-sandbox';
import { describe, expect, it } from 'vitest';
import {
  agentMessageText,
  layoutText,
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
    expect(text?.mrkdwn).toBe('*Done* &lt;b&gt; &amp; see <https://x.io/d|docs>');
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
      '*✅ Completed*\nShipped &lt;v2&gt;\n• one\n• two\n```{\n  "url": "x"\n}```\n_cost $0.123 · 2 rounds_',
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
