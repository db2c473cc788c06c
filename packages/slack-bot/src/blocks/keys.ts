import type { ActionsBlock, Button, InputBlock, KnownBlock, ModalView } from '@slack/types';
import { escapeMrkdwn, mrkdwn, plain, truncate } from './text.js';

/** Service keys in App Home: their action and callback ids, kept beside their builders. */
export const KEY_ACTIONS = { link: 'keys_link', signup: 'keys_signup', remove: 'keys_remove' } as const;
export const KEY_VIEWS = { link: 'keys_link_form', signup: 'keys_signup_form' } as const;

/** Whose key a form or button is about: the workspace's or the viewer's own. */
export type KeySlot = 'workspace' | 'person';

export interface KeysHomeState {
  slot: KeySlot;
  /** The linked key's mask (`sk_…a1b2`), who linked it and when; absent when the slot is empty. */
  linked?: { hint: string; linkedBy: string; linkedAt: string; readable?: boolean };
  /** The viewer may link or remove this slot's key (the workspace's: admins and approvers). */
  mayManage: boolean;
  /** AGENT_KEY_ENCRYPTION_KEY is set: without it nothing can be linked. */
  canLink: boolean;
  signupAllowed: boolean;
}

// A hint is a key's mask (a few characters); bounded anyway, so the line's mention is never cut off.
const linkedLine = (linked: NonNullable<KeysHomeState['linked']>) =>
  `\`${escapeMrkdwn(truncate(linked.hint, 40))}\` · linked by <@${linked.linkedBy}> on ${linked.linkedAt.slice(0, 10)}${
    linked.readable === false
      ? '\n⚠️ It can’t be read any more (the bot’s encryption key changed): link it again.'
      : ''
  }`;

/** The Home tab's section about the Agent Session Service key the viewer's sessions run under. */
export function keysHomeBlocks(s: KeysHomeState): KnownBlock[] {
  const title = s.slot === 'person' ? 'Your service key' : 'This workspace’s service key';
  const none =
    s.slot === 'person'
      ? 'No key linked: your sessions need your own Agent Session Service key.'
      : 'No key linked: sessions run under the key the bot was configured with.';
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(title, 150) },
    { type: 'section', text: mrkdwn(s.linked ? linkedLine(s.linked) : none) },
  ];
  if (!s.mayManage) {
    blocks.push({
      type: 'context',
      elements: [mrkdwn('A workspace admin (or one of the bot’s approvers) links this key.')],
    });
    return blocks;
  }
  if (!s.canLink) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(
          'Keys can’t be linked here: the bot has no `AGENT_KEY_ENCRYPTION_KEY`, and keys are never stored unencrypted.',
        ),
      ],
    });
    return blocks;
  }
  const value = s.slot;
  const elements: Button[] = [
    {
      type: 'button',
      action_id: KEY_ACTIONS.link,
      value,
      text: plain(s.linked ? 'Replace the key' : 'Link a key', 75),
    },
  ];
  if (s.signupAllowed) {
    elements.push({
      type: 'button',
      action_id: KEY_ACTIONS.signup,
      value,
      text: plain('Create an account', 75),
    });
  }
  if (s.linked) {
    elements.push({
      type: 'button',
      action_id: KEY_ACTIONS.remove,
      value,
      style: 'danger',
      text: plain('Remove the key', 75),
      confirm: {
        title: plain('Remove this key?', 100),
        text: plain(
          'Sessions running under it stop being followed (their threads say so) until another key is linked.',
          300,
        ),
        confirm: plain('Remove', 30),
        deny: plain('Keep it', 30),
      },
    });
  }
  blocks.push({ type: 'actions', block_id: 'service_key', elements } satisfies ActionsBlock);
  return blocks;
}

const input = (blockId: string, label: string, hint?: string, placeholder?: string): InputBlock => ({
  type: 'input',
  block_id: blockId,
  label: plain(label, 2000),
  ...(hint ? { hint: plain(hint, 2000) } : {}),
  element: {
    type: 'plain_text_input',
    action_id: 'value',
    max_length: 500,
    ...(placeholder ? { placeholder: plain(placeholder, 150) } : {}),
  },
});

/** Link (or replace) a key: the linked one shown masked only; the new one checked before it is kept. */
export function linkKeyModal(slot: KeySlot, linkedHint?: string): ModalView {
  const whose = slot === 'person' ? 'your sessions' : 'this workspace’s sessions';
  return {
    type: 'modal',
    callback_id: KEY_VIEWS.link,
    title: plain('Service key', 24),
    submit: plain('Check and link', 24),
    close: plain('Cancel', 24),
    private_metadata: JSON.stringify({ slot }),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `The Agent Session Service key ${whose} run under.${linkedHint ? ` Linked now: \`${escapeMrkdwn(linkedHint)}\`.` : ''}`,
        ),
      },
      input(
        'api_key',
        'API key',
        'Checked with the service, then stored encrypted. It is never shown again, only its last four characters.',
        'sk_…',
      ),
    ],
  };
}

/** Create an account with the service (`AGENT_ALLOW_SIGNUP=true`) and link the key it gives. */
export function signupModal(slot: KeySlot): ModalView {
  return {
    type: 'modal',
    callback_id: KEY_VIEWS.signup,
    title: plain('Create an account', 24),
    submit: plain('Create', 24),
    close: plain('Cancel', 24),
    private_metadata: JSON.stringify({ slot }),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `A new Agent Session Service account for ${slot === 'person' ? 'you' : 'this workspace'}; its key is linked here at once.`,
        ),
      },
      input('email', 'Email', undefined, 'you@example.com'),
      input(
        'password',
        'Password',
        'At least 6 characters. Slack shows what you type: use a password for this account only.',
      ),
      { ...input('display_name', 'Display name'), optional: true },
    ],
  };
}

/** Said once in a session's thread when the key it runs under was removed or refused. */
export function keyNotice(input: {
  reason: 'removed' | 'unreadable' | 'rejected' | 'forbidden';
  startedBy: string;
  slot: 'person' | 'workspace' | 'configured';
}): string {
  const what = {
    removed: 'the Agent Session Service key it runs under was removed',
    unreadable:
      'the Agent Session Service key it runs under can’t be read any more (the bot’s encryption key changed)',
    rejected: 'the Agent Session Service refused the key it runs under (401)',
    forbidden: 'the Agent Session Service no longer lets its key see it (403)',
  }[input.reason];
  const fix = {
    person: `<@${input.startedBy}>, link your key on my *Home* tab`,
    workspace: 'a workspace admin can link the workspace’s key on my *Home* tab',
    configured: 'the bot’s operator must replace its configured key (`AGENT_API_KEY`) and restart it',
  }[input.slot];
  return `🔑 I’ve stopped following this session: ${what}. To fix it, ${fix}; I pick the session up again as soon as a key is there.`;
}
