import type { ActionsBlock, KnownBlock, ModalView, SectionBlock } from '@slack/types';
import { escapeMrkdwn, mrkdwn, plain, slackDate, truncate } from './text.js';

/** App Home's agent hosts (MCP): their action ids, beside their builders. */
export const MCP_ACTIONS = {
  connect: 'mcp_connect',
  revoke: 'mcp_revoke',
  revokePerson: 'mcp_revoke_person',
} as const;

/** A token as its owner sees it listed: never the token itself. */
export interface McpTokenLine {
  id: string;
  hint: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  lastClient: string | null;
}

/**
 * Tokens listed at most (each has a Revoke button): no fewer than a person may have working at once
 * (services/mcp MAX_LIVE_TOKENS), so every one of them can be revoked here.
 */
export const MAX_LISTED = 10;

const tokenLine = (t: McpTokenLine): SectionBlock => ({
  type: 'section',
  block_id: `mcp_token_${t.id}`,
  text: mrkdwn(
    `\`${escapeMrkdwn(truncate(t.hint, 40))}\` · made ${slackDate(t.createdAt)} · expires ${slackDate(t.expiresAt)}\n${
      t.lastUsedAt
        ? `Last used ${slackDate(t.lastUsedAt)}${t.lastClient ? ` by ${escapeMrkdwn(truncate(t.lastClient, 100))}` : ''}`
        : 'Not used yet'
    }`,
  ),
  accessory: {
    type: 'button',
    action_id: MCP_ACTIONS.revoke,
    value: t.id,
    style: 'danger',
    text: plain('Revoke', 75),
    confirm: {
      title: plain('Revoke this token?', 100),
      text: plain('Hosts using it are refused from their next request. This can’t be undone.', 300),
      confirm: plain('Revoke', 30),
      deny: plain('Keep it', 30),
    },
  },
});

/** The Home tab's section: the person's tokens for agent hosts (Claude, Cursor, n8n), and a way to make one. */
export function mcpHomeBlocks(tokens: McpTokenLine[]): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain('Agent hosts (MCP)', 150) },
    {
      type: 'section',
      text: mrkdwn(
        tokens.length === 0
          ? 'Let an agent host (Claude, Cursor, an n8n agent) start, watch and answer your sessions as you, under the same rules as here.'
          : `Your tokens (${tokens.length}): each acts as you in this workspace until it expires or you revoke it.`,
      ),
    },
    ...tokens.slice(0, MAX_LISTED).map(tokenLine),
  ];
  blocks.push({
    type: 'actions',
    block_id: 'mcp_tokens',
    elements: [
      {
        type: 'button',
        action_id: MCP_ACTIONS.connect,
        value: 'connect',
        text: plain('Connect an agent host', 75),
      },
    ],
  } satisfies ActionsBlock);
  return blocks;
}

/** One person's working tokens, as the workspace's admins see them: never a token or a hint. */
export interface McpHolderLine {
  userId: string;
  tokens: number;
  lastUsedAt: string | null;
}

/** People listed at most in the admins' section: the most recently active first. */
export const MAX_HOLDERS_LISTED = 15;

const holderLine = (h: McpHolderLine): SectionBlock => ({
  type: 'section',
  block_id: `mcp_holder_${h.userId}`,
  text: mrkdwn(
    `<@${h.userId}> · ${h.tokens} ${h.tokens === 1 ? 'token' : 'tokens'} · ${
      h.lastUsedAt ? `last used ${slackDate(h.lastUsedAt)}` : 'not used yet'
    }`,
  ),
  accessory: {
    type: 'button',
    action_id: MCP_ACTIONS.revokePerson,
    value: h.userId,
    style: 'danger',
    text: plain('Revoke all', 75),
    confirm: {
      title: plain('Revoke their tokens?', 100),
      text: plain(
        'Every agent host acting as this person here is refused from its next request. They can make new tokens while they are in the workspace.',
        300,
      ),
      confirm: plain('Revoke all', 30),
      deny: plain('Keep them', 30),
    },
  },
});

/**
 * The section only the workspace's key admins see: who holds tokens for agent hosts here, each with a
 * button that revokes all of that person's (someone leaving, a token lost). Nothing when nobody does.
 */
export function mcpAdminBlocks(s: { holders: McpHolderLine[]; total: number }): KnownBlock[] {
  if (s.total === 0) return [];
  const listed = s.holders.slice(0, MAX_HOLDERS_LISTED);
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwn(
        `*Everyone’s agent host tokens* (you manage this workspace): ${s.total} ${s.total === 1 ? 'person holds' : 'people hold'} tokens that still work.`,
      ),
    },
    ...listed.map(holderLine),
  ];
  if (s.total > listed.length)
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`…and ${s.total - listed.length} more, less recently active.`)],
    });
  return blocks;
}

/** The new token, shown once: with where to send it and how. */
export function mcpTokenModal(s: { token: string; url: string | undefined; expiresAt: string }): ModalView {
  const url = s.url ?? '<the bot’s address>/mcp';
  const config = JSON.stringify(
    { mcpServers: { 'agent-sessions': { url, headers: { Authorization: `Bearer ${s.token}` } } } },
    null,
    2,
  );
  return {
    type: 'modal',
    title: plain('Connect an agent host', 24),
    close: plain('Done', 24),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          `Your token, shown *only now* (it is kept hashed; if you lose it, make another):\n\`\`\`${s.token}\`\`\``,
        ),
      },
      {
        type: 'section',
        text: mrkdwn(
          `Server URL: \`${escapeMrkdwn(url)}\` (Streamable HTTP), header \`Authorization: Bearer <token>\`. It works until ${slackDate(s.expiresAt)}, and acts as you: keep it as you would a password.`,
        ),
      },
      { type: 'section', text: mrkdwn(`For Claude Desktop, Cursor and most hosts:\n\`\`\`${config}\`\`\``) },
    ],
  };
}
