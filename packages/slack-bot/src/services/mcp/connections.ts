import type { KnownBlock, ModalView } from '@slack/types';
import { MAX_HOLDERS_LISTED, mcpAdminBlocks, mcpHomeBlocks, mcpTokenModal } from '../../blocks/mcp.js';
import type { Logger } from '../../logger.js';
import type { SecretSink } from '../../secret-scrubber.js';
import { currentWorkspace } from '../../workspace.js';
import type { Outcome } from '../outcome.js';
import { MAX_LIVE_TOKENS, type McpTokens } from './tokens.js';

/**
 * App Home's "Agent hosts (MCP)": a person's tokens listed, a new one made and shown once, one revoked;
 * for the workspace's key admins, everyone's, a person's all revoked at once. And a person Slack says
 * was deactivated (`user_change`) loses theirs. Each acts in the workspace the click or event came from
 * (the request's, as every Slack request runs).
 */
export class McpConnections {
  constructor(
    private readonly deps: {
      tokens: Pick<McpTokens, 'mint' | 'list' | 'revoke' | 'revokePerson' | 'holders'>;
      /**
       * Who manages the workspace's service key (its Slack admins and owners, the bot's approvers): the
       * same people see and revoke anyone's tokens here. Without it, nobody does.
       */
      isAdmin?: (userId: string) => Promise<boolean>;
      /** MCP_PUBLIC_URL's /mcp, shown with a new token; unknown without it. */
      url: string | undefined;
      /**
       * What the logs scrub: a new token is told it before the modal showing it is sent, since the
       * WebClient logs views.open's body at LOG_LEVEL=debug.
       */
      secrets: SecretSink;
      /** A Home tab that shows the person's tokens is drawn again. */
      changed: () => void;
      logger: Logger;
    },
  ) {}

  async homeBlocks(userId: string): Promise<KnownBlock[]> {
    const workspace = currentWorkspace();
    if (!workspace) return [];
    const own = mcpHomeBlocks(await this.deps.tokens.list(workspace, userId));
    if (!(await this.#isAdmin(userId))) return own;
    return [...own, ...mcpAdminBlocks(await this.deps.tokens.holders(workspace, MAX_HOLDERS_LISTED))];
  }

  async connect(userId: string): Promise<Outcome<{ view: ModalView }>> {
    const workspace = currentWorkspace();
    if (!workspace) return { ok: false, message: 'Slack didn’t say which workspace this is: try again.' };
    const live = await this.deps.tokens.list(workspace, userId);
    if (live.length >= MAX_LIVE_TOKENS)
      return {
        ok: false,
        message: `You have ${live.length} tokens that still work, the most one person may have (${MAX_LIVE_TOKENS}): revoke one on the Home tab, then make a new one.`,
      };
    const { token, info } = await this.deps.tokens.mint(workspace, userId);
    this.deps.secrets.remember(`MCP token ${info.id}`, token);
    this.deps.changed();
    return { ok: true, view: mcpTokenModal({ token, url: this.deps.url, expiresAt: info.expiresAt }) };
  }

  async revoke(userId: string, tokenId: string | undefined): Promise<Outcome> {
    const workspace = currentWorkspace();
    const revoked = workspace && tokenId ? await this.deps.tokens.revoke(workspace, userId, tokenId) : false;
    if (!revoked) return { ok: false, message: 'That token is not one of yours that still works.' };
    this.deps.changed();
    return { ok: true };
  }

  /** A key admin revokes every token of `person` here: asked again on the click, never read off the button. */
  async revokePerson(adminId: string, person: string | undefined): Promise<Outcome> {
    const workspace = currentWorkspace();
    if (!workspace || !person || !(await this.#isAdmin(adminId)))
      return {
        ok: false,
        message: 'Only this workspace’s admins (who manage its service key) revoke others’ tokens.',
      };
    const revoked = await this.deps.tokens.revokePerson(workspace, person);
    this.deps.logger.info(
      { adminId, userId: person, workspace: workspace.key, revoked },
      'an admin revoked a person’s MCP tokens',
    );
    this.deps.changed();
    return { ok: true };
  }

  /** Slack says `userId` was deactivated: every token of theirs in this workspace stops, on every replica. */
  async left(userId: string): Promise<void> {
    const workspace = currentWorkspace();
    if (!workspace) return;
    const revoked = await this.deps.tokens.revokePerson(workspace, userId);
    if (revoked === 0) return;
    this.deps.logger.info(
      { userId, workspace: workspace.key, revoked },
      'a person deactivated in Slack: their MCP tokens are revoked',
    );
    this.deps.changed();
  }

  async #isAdmin(userId: string): Promise<boolean> {
    return (await this.deps.isAdmin?.(userId).catch(() => false)) ?? false;
  }
}
