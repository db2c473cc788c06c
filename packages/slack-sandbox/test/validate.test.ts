import { describe, expect, it } from 'vitest';
import { validateBlocks, validateView } from '../src/index.js';

const text = (t: string, type = 'plain_text') => ({ type, text: t });
const button = (actionId: string, label = 'Go') => ({
  type: 'button',
  action_id: actionId,
  text: text(label),
});
const option = (v: string, label = v) => ({ text: text(label), value: v });
const pointers = (problems: Array<{ pointer: string; message: string }>) =>
  problems.map((p) => `${p.pointer} ${p.message}`);

describe('Block Kit validation', () => {
  it('accepts a realistic session card and prompt', () => {
    const blocks = [
      { type: 'header', text: text('Ship the release notes') },
      {
        type: 'section',
        text: text('*Status:* running', 'mrkdwn'),
        fields: [text('*Cost*', 'mrkdwn'), text('$0.12 / $5', 'mrkdwn')],
      },
      { type: 'context', elements: [text('Started by <@U0ALICE>', 'mrkdwn')] },
      { type: 'divider' },
      {
        type: 'actions',
        block_id: 'controls',
        elements: [
          button('pause'),
          {
            ...button('cancel', 'Cancel'),
            style: 'danger',
            confirm: {
              title: text('Cancel?'),
              text: text('Really?'),
              confirm: text('Yes'),
              deny: text('No'),
            },
          },
          {
            type: 'static_select',
            action_id: 'pick',
            placeholder: text('Choose'),
            options: [option('a'), option('b')],
          },
          { type: 'checkboxes', action_id: 'regions', options: [option('eu'), option('us')] },
          { type: 'overflow', action_id: 'more', options: [option('x'), option('y')] },
        ],
      },
    ];
    expect(validateBlocks(blocks, 'message')).toEqual([]);
  });

  it.each([
    [
      'too many blocks in a message',
      Array.from({ length: 51 }, () => ({ type: 'divider' })),
      '/blocks must provide no more than 50 items',
    ],
    ['an unknown block type', [{ type: 'carousel' }], '/blocks/0/type unknown block type carousel'],
    [
      'section text over 3000',
      [{ type: 'section', text: text('x'.repeat(3001)) }],
      '/blocks/0/text/text must be less than 3001 characters',
    ],
    [
      'more than 10 fields',
      [{ type: 'section', fields: Array.from({ length: 11 }, () => text('f')) }],
      '/blocks/0/fields must provide no more than 10 items',
    ],
    [
      'a section with neither text nor fields',
      [{ type: 'section' }],
      '/blocks/0 must provide text or fields',
    ],
    [
      'a mrkdwn header',
      [{ type: 'header', text: text('h', 'mrkdwn') }],
      '/blocks/0/text/type must be plain_text',
    ],
    [
      'a header over 150',
      [{ type: 'header', text: text('h'.repeat(151)) }],
      '/blocks/0/text/text must be less than 151 characters',
    ],
    [
      'button text over 75',
      [{ type: 'actions', elements: [button('a', 'b'.repeat(76))] }],
      '/blocks/0/elements/0/text/text must be less than 76 characters',
    ],
    [
      'button value over 2000',
      [{ type: 'actions', elements: [{ ...button('a'), value: 'v'.repeat(2001) }] }],
      '/blocks/0/elements/0/value must be less than 2001 characters',
    ],
    [
      'a duplicate action_id in a block',
      [{ type: 'actions', elements: [button('a'), button('a')] }],
      '/blocks/0/elements/1/action_id action_id must be unique within the block',
    ],
    [
      'a duplicate block_id',
      [
        { type: 'divider', block_id: 'x' },
        { type: 'divider', block_id: 'x' },
      ],
      '/blocks/1/block_id block_id must be unique',
    ],
    [
      'more than 25 actions',
      [{ type: 'actions', elements: Array.from({ length: 26 }, (_, i) => button(`a${i}`)) }],
      '/blocks/0/elements must provide no more than 25 items',
    ],
    [
      'more than 10 context elements',
      [{ type: 'context', elements: Array.from({ length: 11 }, () => text('c')) }],
      '/blocks/0/elements must provide no more than 10 items',
    ],
    [
      'more than 10 checkboxes',
      [
        {
          type: 'actions',
          elements: [
            {
              type: 'checkboxes',
              action_id: 'c',
              options: Array.from({ length: 11 }, (_, i) => option(`o${i}`)),
            },
          ],
        },
      ],
      '/blocks/0/elements/0/options must provide no more than 10 items',
    ],
    [
      'more than 100 select options',
      [
        {
          type: 'actions',
          elements: [
            {
              type: 'static_select',
              action_id: 's',
              options: Array.from({ length: 101 }, (_, i) => option(`o${i}`)),
            },
          ],
        },
      ],
      '/blocks/0/elements/0/options must provide no more than 100 items',
    ],
    [
      'option text over 75',
      [
        {
          type: 'actions',
          elements: [{ type: 'static_select', action_id: 's', options: [option('v', 'l'.repeat(76))] }],
        },
      ],
      '/blocks/0/elements/0/options/0/text/text must be less than 76 characters',
    ],
    [
      'more than 5 overflow options',
      [
        {
          type: 'actions',
          elements: [
            {
              type: 'overflow',
              action_id: 'o',
              options: Array.from({ length: 6 }, (_, i) => option(`o${i}`)),
            },
          ],
        },
      ],
      '/blocks/0/elements/0/options must provide no more than 5 items',
    ],
    [
      'an input block in a message',
      [{ type: 'input', label: text('L'), element: { type: 'plain_text_input', action_id: 'v' } }],
      '/blocks/0 input blocks are only allowed in modals and App Home',
    ],
    [
      'a block_id over 255',
      [{ type: 'divider', block_id: 'b'.repeat(256) }],
      '/blocks/0/block_id must be less than 256 characters',
    ],
    [
      'confirm text over 300',
      [
        {
          type: 'actions',
          elements: [
            {
              ...button('a'),
              confirm: { title: text('t'), text: text('x'.repeat(301)), confirm: text('y'), deny: text('n') },
            },
          ],
        },
      ],
      '/blocks/0/elements/0/confirm/text/text must be less than 301 characters',
    ],
    [
      'a confirm style other than primary or danger',
      [
        {
          type: 'actions',
          elements: [
            {
              ...button('a'),
              confirm: {
                title: text('t'),
                text: text('x'),
                confirm: text('y'),
                deny: text('n'),
                style: 'red',
              },
            },
          ],
        },
      ],
      '/blocks/0/elements/0/confirm/style must be one of primary, danger',
    ],
  ])('refuses %s', (_name, blocks, expected) => {
    expect(pointers(validateBlocks(blocks, 'message'))).toContain(expected);
  });

  it('checks modal titles, buttons, metadata and block counts', () => {
    const view = {
      type: 'modal',
      title: text('x'.repeat(25)),
      private_metadata: 'm'.repeat(3001),
      blocks: [
        {
          type: 'input',
          block_id: 'g',
          label: text('Goal'),
          element: { type: 'plain_text_input', action_id: 'v', max_length: 5000 },
        },
      ],
    };
    expect(pointers(validateView(view))).toEqual(
      expect.arrayContaining([
        '/view/title/text must be less than 25 characters',
        '/view/submit must provide submit when the view has input blocks',
        '/view/private_metadata must be less than 3001 characters',
        '/view/blocks/0/element/max_length must be between 1 and 3000',
      ]),
    );
    const many = { type: 'home', blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) };
    expect(pointers(validateView(many))).toContain('/view/blocks must provide no more than 100 items');
  });

  it('markdown blocks: at most 12,000 characters across the message, in messages only', () => {
    expect(validateBlocks([{ type: 'markdown', text: '# Title\n\n**bold**' }], 'message')).toEqual([]);
    expect(
      pointers(
        validateBlocks(
          [
            { type: 'markdown', text: 'a'.repeat(7_000) },
            { type: 'markdown', text: 'b'.repeat(5_001) },
          ],
          'message',
        ),
      ),
    ).toEqual(['/blocks markdown blocks must be less than 12001 characters in total']);
    expect(pointers(validateBlocks([{ type: 'markdown', text: '' }], 'message'))).toEqual([
      '/blocks/0/text must be more than 0 characters',
    ]);
    expect(pointers(validateBlocks([{ type: 'markdown', text: 'x' }], 'home'))).toEqual([
      '/blocks/0 markdown blocks are only allowed in messages',
    ]);
  });

  it('context_actions: feedback buttons and icon buttons, at most 5', () => {
    const feedback = {
      type: 'feedback_buttons',
      action_id: 'feedback',
      positive_button: { text: text('👍'), value: 'good' },
      negative_button: { text: text('👎'), value: 'bad' },
    };
    expect(validateBlocks([{ type: 'context_actions', elements: [feedback] }], 'message')).toEqual([]);
    expect(
      pointers(
        validateBlocks(
          [
            {
              type: 'context_actions',
              elements: [
                { ...feedback, negative_button: { text: text('👎', 'mrkdwn'), value: '' } },
                { type: 'button', action_id: 'x', text: text('x') },
              ],
            },
          ],
          'message',
        ),
      ),
    ).toEqual([
      '/blocks/0/elements/0/negative_button/text/type must be plain_text',
      '/blocks/0/elements/0/negative_button/value must be more than 0 characters',
      '/blocks/0/elements/1/type must be one of feedback_buttons, icon_button',
    ]);
    const six = Array.from({ length: 6 }, (_, i) => ({ ...feedback, action_id: `f${i}` }));
    expect(pointers(validateBlocks([{ type: 'context_actions', elements: six }], 'message'))).toEqual([
      '/blocks/0/elements must provide no more than 5 items',
    ]);
  });
});
