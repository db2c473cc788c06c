import { type AnswerInput, validateAnswer } from '@agent-sessions/core';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { encodeRef } from '../../refs.js';
import { inWorkspace } from '../../workspace.js';
import { isDirectConversation } from '../people/policy.js';
import { notVisible } from '../people/visibility.js';
import { SESSION_ID } from './reading-tools.js';
import { done, refused } from './results.js';
import type { McpToolDeps, ToolCaller } from './tool-deps.js';

const startInput = z.object({
  goal: z.string().trim().min(1, 'tell the agent what to do').describe('What the agent should do'),
  budget_usd: z.number().positive('the budget must be a positive number of USD').optional(),
  max_iterations: z.number().int().positive('max iterations must be a whole number above 0').optional(),
  context: z.record(z.string(), z.unknown()).optional().describe('A JSON object handed to the agent'),
  channel: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/, 'a Slack channel id, like C0123ABCD')
    .optional()
    .describe(
      "Where the session's card goes: a channel you are a member of. Without it, your DM with the bot",
    ),
});

const answerInput = z.object({
  session_id: SESSION_ID,
  input_id: z
    .string()
    .min(1)
    .optional()
    .describe('The question; without it, the session’s one open question'),
  approve: z.boolean().optional().describe('An approval: true approves, false rejects'),
  reason: z.string().optional().describe('Why, with a rejection'),
  choice: z.string().optional().describe('A single-select question: the option id'),
  choices: z.array(z.string()).optional().describe('A multi-select question: the option ids'),
  text: z.string().optional().describe('A free-text question: the answer'),
  answers: z
    .record(z.string(), z.union([z.string(), z.array(z.string())]))
    .optional()
    .describe('A multi-question form: each question id with its answer (text, an option id, or option ids)'),
});

// Built once, not per request: each request gets a fresh server (stateless MCP), and making zod schemas
// was most of the SDK's time in a call.
const startOutput = z.object({
  session_id: z.string(),
  channel_id: z.string(),
  card_ts: z.string().nullable(),
});

const signalInput = z.object({
  session_id: SESSION_ID,
  signal: z.enum(['pause', 'resume', 'cancel', 'redirect']),
  message: z.string().trim().min(1).optional().describe('redirect: the new instruction; resume: a note'),
  reason: z.string().trim().min(1).optional().describe('pause or cancel: why'),
});

const signalOutput = z.object({ session_id: z.string(), signal: z.string(), sent: z.boolean() });

const answerOutput = z.object({ session_id: z.string(), input_id: z.string(), answered: z.boolean() });

/** The answer's fields as core names them, back to this tool's names, so a refusal names what was sent. */
const FIELD_NAMES: Record<string, string> = {
  approved: 'approve',
  choiceId: 'choice',
  choiceIds: 'choices',
  freeText: 'text',
};
const toolField = (field: string) => FIELD_NAMES[field] ?? field;

export function registerActingTools(
  server: McpServer,
  caller: ToolCaller,
  deps: McpToolDeps,
  wants: (tool: string) => boolean = () => true,
): void {
  const run = <T>(fn: () => Promise<T>) => inWorkspace(caller.workspace, fn);
  if (wants('start_session'))
    server.registerTool(
      'start_session',
      {
        title: 'Start an agent session',
        description:
          'Starts an autonomous agent session as you, exactly as `/agent start` does in Slack (the allowed channels, the budget ceiling, your service key): its card is posted in the channel you name, else in your DM with the bot.',
        inputSchema: startInput,
        outputSchema: startOutput,
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: true,
        },
      },
      (input, ctx) => run(() => start(caller, deps, input, caller.host(ctx))),
    );
  if (wants('send_signal'))
    server.registerTool(
      'send_signal',
      {
        title: 'Pause, resume, cancel or redirect a session',
        description:
          'Steers a running session as the card’s buttons do, under the same policy: pause, resume, cancel (final), or redirect with a new instruction in `message`.',
        inputSchema: signalInput,
        outputSchema: signalOutput,
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
        },
      },
      ({ session_id, signal, message, reason }, ctx) =>
        run(async () => {
          if (signal === 'redirect' && !message)
            return refused('required with signal "redirect": the new instruction for the agent', 'message');
          const extra = { ...(message ? { message } : {}), ...(reason ? { reason } : {}) };
          const outcome = await deps.steering.signal(session_id, caller.userId, signal, extra, {
            host: caller.host(ctx),
          });
          if (!outcome.ok) return refused(outcome.message);
          return done({ session_id, signal, sent: true });
        }),
    );
  if (wants('answer_question'))
    server.registerTool(
      'answer_question',
      {
        title: 'Answer a session’s question',
        description:
          'Answers the question a session waits on, as the buttons under its Slack prompt do: the same policy (who may answer, four eyes), checked against the question’s options; the first answer from anywhere wins, and the Slack prompt shows who answered. Use the field that fits the question’s kind.',
        inputSchema: answerInput,
        outputSchema: answerOutput,
        annotations: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
        },
      },
      (input, ctx) => run(() => answer(caller, deps, input, caller.host(ctx))),
    );
}

async function start(caller: ToolCaller, deps: McpToolDeps, input: z.infer<typeof startInput>, host: string) {
  // The card goes where the person could run `/agent start` themselves: a channel they are in.
  const channelId = input.channel ?? caller.userId;
  if (
    input.channel &&
    !isDirectConversation(input.channel) &&
    !(await deps.visibility.maySee(caller.userId, { startedBy: '', channelId: input.channel }))
  )
    return refused('you can start a session only in a channel you are a member of', 'channel');
  const started = await deps.starting.start({
    channelId,
    userId: caller.userId,
    goal: input.goal,
    ...(input.budget_usd === undefined ? {} : { budget: input.budget_usd }),
    ...(input.max_iterations === undefined ? {} : { maxIterations: input.max_iterations }),
    ...(input.context ? { context: input.context } : {}),
    origin: `started ${host}`,
    host,
  });
  if (!started.ok) return refused(started.message);
  const session = await deps.sessions.get(started.sessionId);
  return done({
    session_id: started.sessionId,
    channel_id: session?.channelId ?? channelId,
    card_ts: session?.cardTs ?? null,
  });
}

async function answer(
  caller: ToolCaller,
  deps: McpToolDeps,
  input: z.infer<typeof answerInput>,
  host: string,
) {
  const sessionId = input.session_id;
  const session = await deps.sessions.get(sessionId);
  if (!session || !(await deps.visibility.maySee(caller.userId, session)))
    return refused(notVisible(sessionId));
  const open = (await deps.prompts.pending(sessionId)).filter((p) => p.state === 'pending');
  if (!input.input_id && open.length > 1)
    return refused(
      `required: this session waits on ${open.length} questions (${open.map((p) => p.inputId).join(', ')})`,
      'input_id',
    );
  const inputId = input.input_id ?? open[0]?.inputId;
  if (!inputId) return refused('this session waits on no question now (answered already, or none asked)');
  // A question answered (or being answered) is still found: AnsweringService then says by whom.
  const prompt = open.find((p) => p.inputId === inputId) ?? (await deps.prompts.get(sessionId, inputId));
  if (!prompt) return refused('this session asked no question with this id', 'input_id');
  const given: AnswerInput = {
    ...(input.approve === undefined ? {} : { approved: input.approve }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    ...(input.choice === undefined ? {} : { choiceId: input.choice }),
    ...(input.choices === undefined ? {} : { choiceIds: input.choices }),
    ...(input.text === undefined ? {} : { freeText: input.text }),
    ...(input.answers === undefined ? {} : { answers: input.answers }),
  };
  // Checked here first only to name this tool's fields; AnsweringService checks again, as for a click.
  const checked = validateAnswer(prompt.request, given);
  if (!checked.ok)
    return refused(checked.issues.map((i) => `${toolField(i.field)} (${i.rule}): ${i.message}`).join('; '));
  const outcome = await deps.answering.answer({
    ref: encodeRef({ sessionId, inputId: prompt.inputId }),
    userId: caller.userId,
    answer: { kind: 'input', input: given },
    host,
  });
  if (!outcome.ok) return refused(outcome.message);
  return done({ session_id: sessionId, input_id: prompt.inputId, answered: true });
}
