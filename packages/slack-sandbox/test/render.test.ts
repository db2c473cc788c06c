import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  markdown,
  mrkdwn,
  type RenderContext,
  renderBlock,
  renderBlocks,
} from '../src/web/render.js';
import { mentionsToSlack } from '../src/web/routes.js';
import { Workspace } from '../src/workspace.js';

const ctx: RenderContext = {
  users: { U0ALICE: 'alice' },
  channels: { C0AGENTS: 'agents' },
  container: { kind: 'message', channel: 'C0AGENTS', ts: '1.000001' },
};
const viewCtx: RenderContext = {
  ...ctx,
  container: { kind: 'view', viewId: 'V1' },
  errors: { answer: 'Please type <an> answer' },
};
const md = (text: string) => ({ type: 'mrkdwn', text });
const pt = (text: string) => ({ type: 'plain_text', text });

describe('mrkdwn', () => {
  it('formats bold, italic, strike, code and code blocks, and keeps Slack entities as text', () => {
    expect(mrkdwn('*Done* _now_ ~old~ `x<y` &amp; &lt;b&gt;', ctx)).toBe(
      '<strong>Done</strong> <em>now</em> <del>old</del> <code>x&lt;y</code> &amp; &lt;b&gt;',
    );
    expect(mrkdwn('```a <b>\n&amp;```', ctx)).toBe('<pre>a &lt;b&gt;\n&amp;</pre>');
    expect(mrkdwn('line one\n&gt; quoted', ctx)).toBe('line one<br><blockquote>quoted</blockquote>');
  });

  it('renders mentions, channels and links; refuses script URLs', () => {
    expect(mrkdwn('<@U0ALICE> in <#C0AGENTS> see <https://x.io/a?b=1&amp;c=2|docs>', ctx)).toBe(
      '<span class="mention" data-user="U0ALICE">@alice</span> in <span class="channel-link">#agents</span> see <a href="https://x.io/a?b=1&amp;c=2" target="_blank" rel="noopener">docs</a>',
    );
    expect(mrkdwn('<javascript:alert(1)|click>', ctx)).toContain('href="#"');
    expect(mrkdwn('<@U0NOBODY>', ctx)).toContain('@U0NOBODY');
    const linkButton = renderBlock(
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'x', text: pt('Open'), url: 'javascript:alert(1)' }],
      },
      0,
      ctx,
    );
    expect(linkButton).toContain('href="#"');
    expect(renderBlock({ type: 'image', image_url: 'javascript:alert(1)', alt_text: 'x' }, 0, ctx)).toContain(
      'href="#"',
    );
  });

  it('never lets text become markup', () => {
    const html = mrkdwn('<img src=x onerror=alert(1)> "q"', ctx);
    expect(html).not.toContain('<img');
    expect(escapeHtml('"<&>\'')).toBe('&quot;&lt;&amp;&gt;&#39;');
  });
});

describe('blocks', () => {
  it('header, divider, section with fields and accessory, context, image', () => {
    expect(renderBlock({ type: 'header', text: pt('Ship <it>') }, 0, ctx)).toBe(
      '<div class="block header">Ship &lt;it&gt;</div>',
    );
    expect(renderBlock({ type: 'divider' }, 0, ctx)).toBe('<hr class="block divider">');
    const section = renderBlock(
      {
        type: 'section',
        block_id: 'answer',
        text: md('*Status*'),
        fields: [md('*Cost*\n$1'), md('*Rounds*\n2')],
        accessory: {
          type: 'static_select',
          action_id: 'input_select',
          placeholder: pt('Choose…'),
          options: [{ text: pt('One'), value: '0' }],
        },
      },
      0,
      ctx,
    );
    expect(section).toContain('<strong>Status</strong>');
    expect(section).toContain('<div class="field"><strong>Cost</strong><br>$1</div>');
    expect(section).toContain('data-action="input_select"');
    expect(section).toContain('data-ts="1.000001"');
    expect(renderBlock({ type: 'context', elements: [md('by <@U0ALICE>'), pt('plain')] }, 0, ctx)).toBe(
      '<div class="block context"><span>by <span class="mention" data-user="U0ALICE">@alice</span></span> <span>plain</span></div>',
    );
    expect(
      renderBlock({ type: 'image', image_url: 'https://x.io/i.png', alt_text: 'chart' }, 0, ctx),
    ).toContain('🖼 chart');
  });

  it('actions: buttons (styles, values, confirm), checkboxes, multi-select, overflow, radio', () => {
    const actions = renderBlock(
      {
        type: 'actions',
        block_id: 'choices',
        elements: [
          { type: 'button', action_id: 'go', text: pt('Go'), style: 'primary', value: '{"sessionId":"s"}' },
          {
            type: 'button',
            action_id: 'stop',
            text: pt('Cancel'),
            style: 'danger',
            confirm: { title: pt('Sure?'), text: pt('It stops.'), confirm: pt('Yes'), deny: pt('No') },
          },
          {
            type: 'checkboxes',
            action_id: 'pick',
            options: [{ text: pt('EU'), value: '0', description: pt('Frankfurt') }],
          },
          { type: 'multi_static_select', action_id: 'many', options: [{ text: pt('A'), value: 'a' }] },
          { type: 'overflow', action_id: 'more', options: [{ text: pt('Edit'), value: 'e' }] },
          { type: 'radio_buttons', action_id: 'one', options: [{ text: pt('X'), value: 'x' }] },
        ],
      },
      0,
      ctx,
    );
    expect(actions).toContain('class="button primary"');
    expect(actions).toContain('data-value="{&quot;sessionId&quot;:&quot;s&quot;}"');
    const confirm = /data-confirm="([^"]*)"/.exec(actions)?.[1] ?? '';
    expect(JSON.parse(confirm.replaceAll('&quot;', '"').replaceAll('&amp;', '&'))).toEqual({
      title: 'Sure?',
      html: 'It stops.',
      confirm: 'Yes',
      deny: 'No',
      style: 'primary',
    });
    expect(actions).toContain('type="checkbox"');
    expect(actions).toContain('<small>Frankfurt</small>');
    expect(actions).toContain('multiple');
    expect(actions).toContain('class="select overflow"');
    expect(actions).toContain('type="radio"');
  });

  it('inputs of a modal, with their inline errors', () => {
    const html = renderBlocks(
      [
        {
          type: 'input',
          block_id: 'answer',
          label: pt('Your answer'),
          element: { type: 'plain_text_input', action_id: 'value', multiline: true },
        },
        {
          type: 'input',
          block_id: 'budget',
          optional: true,
          label: pt('Budget'),
          hint: pt('USD'),
          element: { type: 'plain_text_input', action_id: 'value', initial_value: '5' },
        },
        {
          type: 'input',
          block_id: 'q_1',
          label: pt('Channel?'),
          element: { type: 'radio_buttons', action_id: 'value', options: [{ text: pt('Beta'), value: '1' }] },
        },
      ],
      viewCtx,
    );
    expect(html).toContain(
      '<textarea class="text-input" data-view="V1" data-block="answer" data-action="value" data-input',
    );
    expect(html).toContain('<div class="error" role="alert">Please type &lt;an&gt; answer</div>');
    expect(html).toContain('value="5"');
    expect(html).toContain('<small>(optional)</small>');
    expect(html).toContain('<div class="hint">USD</div>');
    expect(html).toContain('data-kind="radio" data-input');
  });

  it('shows a message without blocks as its text, and says what it cannot render', () => {
    expect(renderBlocks(undefined, ctx, 'hello *you*')).toBe(
      // In a section body, so inline pieces flow as text rather than as the section's flex items.
      '<div class="block section"><div class="section-body">hello <strong>you</strong></div></div>',
    );
    expect(renderBlock({ type: 'video' }, 0, ctx)).toContain('[video block]');
  });
});

describe('the markdown block', () => {
  it('renders headings, emphasis, lists, quotes, code and links', () => {
    expect(markdown('# Report\n\n**Done** in *2 steps* with `npm test` ~~maybe~~')).toBe(
      '<h3 class="md-heading">Report</h3><p><strong>Done</strong> in <em>2 steps</em> with <code>npm test</code> <del>maybe</del></p>',
    );
    expect(markdown('- one\n- two\n1. first\n> said')).toBe(
      '<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol><blockquote>said</blockquote>',
    );
    expect(markdown('```\nconst a = 1 < 2;\n```')).toBe('<pre>const a = 1 &lt; 2;</pre>');
    expect(markdown('[docs](https://x.io/a?b=1&c=2)')).toBe(
      '<p><a href="https://x.io/a?b=1&amp;c=2" target="_blank" rel="noopener">docs</a></p>',
    );
  });

  it('never lets raw HTML or script links through', () => {
    const html = markdown('<img src=x onerror=alert(1)> <script>alert(1)</script> [x](javascript:alert(1))');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('href="#"');
    expect(markdown('`<b>` **<i>x</i>**')).toBe(
      '<p><code>&lt;b&gt;</code> <strong>&lt;i&gt;x&lt;/i&gt;</strong></p>',
    );
  });

  it('as a block, and feedback buttons as buttons that carry their value', () => {
    expect(renderBlock({ type: 'markdown', text: '**hi**' }, 0, ctx)).toBe(
      '<div class="block markdown" data-testid="markdown"><p><strong>hi</strong></p></div>',
    );
    const html = renderBlock(
      {
        type: 'context_actions',
        block_id: 'fb',
        elements: [
          {
            type: 'feedback_buttons',
            action_id: 'feedback',
            positive_button: { text: pt('👍'), value: 'good' },
            negative_button: { text: pt('👎'), value: 'bad', accessibility_label: 'Not helpful' },
          },
        ],
      },
      0,
      ctx,
    );
    // Slack's thumb icons, drawn as SVG: they show without an emoji font; the button's text is its title.
    expect(html).toContain('data-action="feedback" data-press-value data-value="good" title="👍"><svg');
    expect(html).toContain('data-value="bad" aria-label="Not helpful" title="👎"><svg');
    expect(html).toContain('data-testid="thumb-up"');
    expect(html).toContain('data-testid="thumb-down"');
    expect(html).not.toMatch(/>👍<|>👎</);
  });

  it('a person’s rich_text message shows its mentions', () => {
    const html = renderBlock(
      {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'user', user_id: 'U0ALICE' },
              { type: 'text', text: ' look <here>' },
            ],
          },
        ],
      },
      0,
      ctx,
    );
    expect(html).toContain('@alice</span> look &lt;here&gt;');
  });
});

describe('the composer’s mentions', () => {
  it('turns @name into <@ID> for people and the bot, and leaves unknown names and e-mail addresses', () => {
    const workspace = new Workspace();
    expect(mentionsToSlack('@agents ship it, cc @Bob and @nobody (mail a@b.io)', workspace)).toBe(
      '<@U0AGENTBOT> ship it, cc <@U0BOB> and @nobody (mail a@b.io)',
    );
  });
});

describe('Slack date tokens', () => {
  // 2026-11-27 17:11:30 UTC: 18:11 in Berlin, 12:11 in New York.
  const epoch = Date.UTC(2026, 10, 27, 17, 11, 30) / 1000;
  const token = (format: string) => `<!date^${epoch}^${format}|2026-11-27 17:11 UTC>`;
  const at = (timeZone: string, now = epoch * 1000) => ({ ...ctx, timeZone, now });

  it('show each reader the time in their own zone, as Slack’s client does', () => {
    expect(mrkdwn(token('{date_short_pretty} at {time}'), at('Europe/Berlin'))).toContain(
      '>today at 6:11 PM<',
    );
    expect(mrkdwn(token('{date_short_pretty} at {time}'), at('America/New_York'))).toContain(
      '>today at 12:11 PM<',
    );
    const later = at('Europe/Berlin', (epoch + 3 * 86_400) * 1000);
    expect(mrkdwn(token('{date_short_pretty} at {time}'), later)).toContain('>Nov 27, 2026 at 6:11 PM<');
    expect(mrkdwn(token('{date_num} {time_secs}'), at('UTC'))).toContain('>2026-11-27 5:11:30 PM<');
    expect(mrkdwn(token('{ago}'), at('UTC', (epoch + 120) * 1000))).toContain('>2 minutes ago<');
  });

  it('show the fallback for a token Slack doesn’t know or a bad epoch; never the raw token', () => {
    expect(mrkdwn(token('{nonsense}'), at('UTC'))).toBe('2026-11-27 17:11 UTC');
    expect(mrkdwn('<!date^soon^{time}|whenever>', at('UTC'))).toBe('whenever');
    expect(mrkdwn(token('{time}'), at('UTC'))).not.toContain('!date');
  });
});
