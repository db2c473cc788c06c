import { setImmediate as nextTurn } from 'node:timers/promises';
import { isTerminalStatus } from '@agent-sessions/core';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { SessionWithPending } from '../../store/prompts.js';
import { inWorkspace } from '../../workspace.js';
import { notVisible } from '../people/visibility.js';
import { done, refused } from './results.js';
import {
  openQuestions,
  questionSchema,
  questionView,
  sessionNumbers,
  sessionNumbersSchema,
  sessionSummary,
  sessionSummarySchema,
} from './session-view.js';
import { type McpToolDeps, READ_ONLY, type ToolCaller } from './tool-deps.js';
import type { WaitEnd } from './waiting.js';

export const SESSION_ID = z
  .string()
  .min(1, 'a session id is required')
  .max(512, 'a session id is at most 512 characters')
  .describe('The session id, as start_session or list_sessions gave it');

const messageSchema = z.object({
  round_id: z.string(),
  role: z.string().nullable(),
  content: z.string().nullable(),
  timestamp: z.string().nullable(),
});

const sessionStateSchema = sessionNumbersSchema.extend({
  session: sessionSummarySchema,
  latest_messages: z.array(messageSchema),
  pending_questions: z.array(questionSchema),
});

// Built once, not per request: each request gets a fresh server (stateless MCP), and making zod schemas
// was most of the SDK's time in a call.
const getInput = z.object({
  session_id: SESSION_ID,
  messages: z.number().int().min(0).max(50).default(10).describe('How many of the latest messages'),
});

const listInput = z.object({});

const listOutput = z.object({
  mine: z.array(sessionSummarySchema),
  waiting_on_you: z.array(z.object({ session: sessionSummarySchema, question: questionSchema })),
});

const waitOutput = z.object({
  ended_because: z.enum(['ended', 'asking', 'timeout']),
  status: z.string(),
  finished: z.boolean(),
  pending_questions: z.array(questionSchema),
});

/** wait_for_session's input for a cap (MCP_WAIT_MAX_SECONDS): one per cap, made on first use. */
const waitInputs = new Map<number, ReturnType<typeof waitInputFor>>();
const waitInputFor = (cap: number) =>
  z.object({
    session_id: SESSION_ID,
    timeout_seconds: z.number().int().min(1).max(cap).default(cap).describe(`At most ${cap}`),
  });
function waitInput(cap: number) {
  const made = waitInputs.get(cap) ?? waitInputFor(cap);
  waitInputs.set(cap, made);
  return made;
}

export function registerReadingTools(
  server: McpServer,
  caller: ToolCaller,
  deps: McpToolDeps,
  wants: (tool: string) => boolean = () => true,
): { readingAhead: boolean } {
  const run = <T>(fn: () => Promise<T>) => inWorkspace(caller.workspace, fn);
  // The request's one call is get_session: its service reads may begin now, as its server is made.
  const ahead =
    caller.calls === 'get_session'
      ? inWorkspace(caller.workspace, () => readsAhead(caller, deps))
      : undefined;
  if (wants('get_session'))
    server.registerTool(
      'get_session',
      {
        title: 'Get an agent session',
        description:
          "A session's status, cost against its budget, rounds, latest messages and the questions it waits on (with their options), as its Slack card shows them.",
        inputSchema: getInput,
        outputSchema: sessionStateSchema,
        annotations: READ_ONLY,
      },
      ({ session_id, messages }) => run(() => sessionState(caller, deps, { session_id, messages }, ahead)),
    );
  if (wants('list_sessions'))
    server.registerTool(
      'list_sessions',
      {
        title: 'List my agent sessions',
        description:
          'Your own sessions (newest first) and the questions waiting on you in sessions you may answer, as your App Home shows them.',
        inputSchema: listInput,
        outputSchema: listOutput,
        annotations: READ_ONLY,
      },
      () =>
        run(async () => {
          const { mine, waiting } = await deps.directory.overview(caller.userId);
          const now = Date.now();
          return done({
            mine: mine.map((s) => sessionSummary(s, now)),
            waiting_on_you: waiting.map((w) => ({
              session: sessionSummary(w.session, now),
              question: questionView(w.prompt.request),
            })),
          });
        }),
    );
  if (wants('wait_for_session')) registerWait(server, caller, deps);
  return { readingAhead: ahead !== undefined };
}

/** get_session's service reads, begun as the request's server is made: for a session whose slot is known here. */
interface ReadsAhead {
  input: z.infer<typeof getInput>;
  keyRef: string | null;
  reads: ReturnType<typeof serviceReads>;
}

/**
 * The request's one call is get_session of a session seen in this workspace (its slot never changes): the
 * service is asked under that slot now, with the arguments as sent once they pass the tool's schema, while
 * the SDK and the store's read do their part.
 */
function readsAhead(caller: ToolCaller, deps: McpToolDeps): ReadsAhead | undefined {
  const parsed = getInput.safeParse(caller.callArguments ?? {});
  const known = parsed.success ? deps.slots.of(parsed.data.session_id) : undefined;
  if (!parsed.success || !known) return undefined;
  const reads = serviceReads(deps, parsed.data.session_id, known.keyRef, parsed.data.messages);
  return { input: parsed.data, keyRef: known.keyRef, reads };
}

/** The service's answer, asked ahead or now, is shown only once the store's read lets this person see it. */
async function sessionState(
  caller: ToolCaller,
  deps: McpToolDeps,
  input: z.infer<typeof getInput>,
  ahead: ReadsAhead | undefined,
) {
  const { session_id: sessionId, messages: count } = input;
  const early = ahead?.input.session_id === sessionId && ahead.input.messages === count ? ahead : undefined;
  // undici writes a request on a kept-alive socket only after a turn of the event loop (it checks the idle
  // socket first): the store's read, on this thread with PGlite, would hold that turn and the request back.
  // The server's maker gave one already (sessionServer); this one is for a request whose client was looked up.
  if (early) await nextTurn();
  const found = await deps.prompts.sessionWithPending(sessionId);
  if (!found || !(await deps.visibility.maySee(caller.userId, found.session)))
    return refused(notVisible(sessionId));
  const { session, pending, keyRef } = found;
  deps.slots.seen(sessionId, keyRef);
  const asked = early && (keyRef === undefined || keyRef === early.keyRef) ? early.reads : undefined;
  const [live, latest] = await (asked ?? serviceReads(deps, sessionId, keyRef, count));
  const now = Date.now();
  return done({
    session: sessionSummary(session, now),
    ...sessionNumbers(session, live, now),
    latest_messages: latest,
    pending_questions: openQuestions(pending),
  });
}

/** The service's view and latest messages, each undefined or empty when the service can't be read. */
function serviceReads(
  deps: McpToolDeps,
  sessionId: string,
  keyRef: string | null | undefined,
  count: number,
) {
  return Promise.all([
    deps.live.status(sessionId, keyRef).catch(() => undefined),
    count > 0 ? deps.live.latestMessages(sessionId, keyRef, count).catch(() => []) : Promise.resolve([]),
  ]);
}

function registerWait(server: McpServer, caller: ToolCaller, deps: McpToolDeps): void {
  const cap = deps.waitCapSeconds;
  server.registerTool(
    'wait_for_session',
    {
      title: 'Wait for an agent session',
      description: `Returns when the session ends or asks a question, or after timeout_seconds (at most ${cap}); call it again to keep waiting. Sends progress notifications while it waits when the request carries a progressToken.`,
      inputSchema: waitInput(cap),
      outputSchema: waitOutput,
      annotations: READ_ONLY,
    },
    ({ session_id, timeout_seconds }, ctx) =>
      inWorkspace(caller.workspace, () => waitFor(caller, deps, { session_id, timeout_seconds }, ctx)),
  );
}

async function waitFor(
  caller: ToolCaller,
  deps: McpToolDeps,
  input: { session_id: string; timeout_seconds: number },
  ctx: ServerContext,
) {
  const sessionId = input.session_id;
  // The session and its questions in one read, admitted a few at a time (see SessionWaiter.admit).
  const knownAt = deps.waiter.mark();
  const first = await deps.waiter.admit(async () => {
    if (caller.gone?.aborted) return 'gone';
    const found = await deps.prompts.sessionWithPending(sessionId);
    return found && (await deps.visibility.maySee(caller.userId, found.session)) ? found : undefined;
  });
  if (first === 'gone') return refused(GONE);
  if (!first) return refused(notVisible(sessionId));
  const known = stateOf(first);
  if (known.ended || known.asking) return waited(known.ended ? 'ended' : 'asking', first);
  const signal = caller.gone ? AbortSignal.any([ctx.mcpReq.signal, caller.gone]) : ctx.mcpReq.signal;
  const ended = await deps.waiter.wait(sessionId, {
    ...{ maxMs: input.timeout_seconds * 1000, signal, known, knownAt },
    ...progressOf(ctx),
  });
  // The host cancelled or went away: nobody reads the answer, so nothing more is read for it.
  if (caller.gone?.aborted) return refused(GONE);
  return waited(ended, (await deps.prompts.sessionWithPending(sessionId)) ?? first);
}

function waited(ended: WaitEnd, { session, pending }: SessionWithPending) {
  return done({
    ended_because: ended,
    status: session.status,
    finished: session.finished || isTerminalStatus(session.status),
    pending_questions: openQuestions(pending),
  });
}

const GONE = 'the host cancelled this call, or its connection closed';

const stateOf = ({ session, pending }: SessionWithPending) => ({
  ended: session.finished || isTerminalStatus(session.status),
  asking: pending.some((p) => p.state === 'pending'),
});

/** Progress notifications, when the call carries a progressToken: each event of the session is one. */
function progressOf(ctx: ServerContext): { progress?: (seen: number, what: string) => void } {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return {};
  return {
    progress: (seen, what) => {
      void ctx.mcpReq
        .notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: seen, message: `the session's ${what} changed` },
        })
        .catch(() => {});
    },
  };
}
