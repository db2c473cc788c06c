import type { EndedSession } from './step-outcome.js';
import { NoKeyHere } from './workflow-steps.js';

/** The reads the wait step needs: a recorded session with its own key, any other with a start's key. */
export interface SessionKeys {
  /** Calls with each session's own key (the one it was started with). */
  calls: { sessions: { get(sessionId: string): Promise<EndedSession> } };
  /** The key a start in the current workspace would use; `ref` undefined: AGENT_API_KEY, lent. */
  forStart(userId: string): Promise<
    | {
        ok: true;
        ref: string | undefined;
        client: { sessions: { get(sessionId: string): Promise<EndedSession> } };
      }
    | { ok: false; message: string }
  >;
}

const LENT =
  'a session the bot did not start is read only with a key linked for this workspace, and AGENT_API_KEY is lent to every workspace';

/**
 * The wait step's read of a session. One the bot started: its own key, whoever runs the workflow. One
 * started elsewhere (n8n, an HTTP request): the key a start in this workspace would go with. Under OAuth
 * installs that must be the workspace's own linked key: AGENT_API_KEY, lent to every workspace, would let
 * one workspace read what another tool started with it for someone else.
 */
export function sessionReader(keys: SessionKeys, isolated: boolean) {
  return async (sessionId: string, recorded: boolean): Promise<EndedSession> => {
    if (recorded) return keys.calls.sessions.get(sessionId);
    const key = await keys.forStart('');
    if (!key.ok) throw new NoKeyHere(key.message);
    if (isolated && key.ref === undefined)
      throw new NoKeyHere(
        `The Agent Session Service has no session ${sessionId} this bot may see here (${LENT}).`,
      );
    return key.client.sessions.get(sessionId);
  };
}
