import type { ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import type { PromptRepository } from '../../store/prompts.js';
import type { SessionRepository } from '../../store/sessions.js';
import type { LiveSession } from '../outcome.js';
import type { AnsweringService } from '../people/answering.js';
import type { SessionDirectory } from '../people/directory.js';
import type { StartingService } from '../people/starting.js';
import type { SteeringService } from '../people/steering.js';
import type { SessionVisibility } from '../people/visibility.js';
import type { SessionSlots } from './session-slots.js';
import type { McpCaller } from './tokens.js';
import type { SessionWaiter } from './waiting.js';

/** One of the agent's messages as get_session shows it. */
export interface MessageView {
  round_id: string;
  role: string | null;
  content: string | null;
  timestamp: string | null;
}

/** What the tools act through: the same services a Slack click or command goes through. */
export interface McpToolDeps {
  starting: Pick<StartingService, 'start'>;
  answering: Pick<AnsweringService, 'answer'>;
  steering: Pick<SteeringService, 'signal'>;
  directory: Pick<SessionDirectory, 'overview'>;
  sessions: Pick<SessionRepository, 'get'>;
  prompts: Pick<PromptRepository, 'pending' | 'get' | 'sessionWithPending'>;
  visibility: Pick<SessionVisibility, 'maySee'>;
  /**
   * The service's view of a session, under the session's own key: its slot (`keyRef`, null for
   * AGENT_API_KEY's) as read with the session, or undefined to look it up.
   */
  live: {
    status(sessionId: string, keyRef: string | null | undefined): Promise<LiveSession>;
    latestMessages(
      sessionId: string,
      keyRef: string | null | undefined,
      count: number,
    ): Promise<MessageView[]>;
  };
  /** The slots of sessions seen in each workspace: get_session asks the service without waiting for the store. */
  slots: Pick<SessionSlots, 'of' | 'seen'>;
  waiter: SessionWaiter;
  /** MCP_WAIT_MAX_SECONDS: the longest one wait_for_session call waits. */
  waitCapSeconds: number;
  logger: Logger;
}

/** Who calls: the token's person and workspace, and the host, as the audit names it ("via MCP, Claude"). */
export interface ToolCaller extends McpCaller {
  /** "via MCP, <client name>": from the call's own metadata when it names the host, else its User-Agent. */
  host(ctx?: ServerContext): string;
  /**
   * For a call held open (wait_for_session): aborted when its host cancels it or its connection closes
   * before the answer is written. Its slot is free already; the call ends without reading more.
   */
  gone?: AbortSignal;
  /** The one tool the request calls (a single `tools/call`): its server needs no other. */
  calls?: string;
  /**
   * That call's arguments as the request has them, before the SDK checks them: a tool may begin a read
   * for them while its server is made (get_session), checking them with its own schema first.
   */
  callArguments?: unknown;
}

/** Annotations as the spec defines them: hints to the host, honest about what each tool changes. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
