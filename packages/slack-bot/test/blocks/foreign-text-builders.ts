/**
 * Every message and view builder of src/blocks, fed someone else's text (the agent's, the service's, a
 * person's) in every input that carries it. The ping and fuzz tests run all of them; `HELPERS` names
 * the exports that build no message, and a test fails when an export is in neither list.
 */
import type { HumanInputOption, HumanInputQuestion, HumanInputRequest } from '@agent-sessions/core';
import * as blocks from '../../src/blocks/index.js';
import type { SessionRecord } from '../../src/store/records.js';

/** The bot's own mentions in these outputs: the starter, whoever answered, the approvers' group. */
export const STARTER = 'U0STARTER';
export const ANSWERER = 'U0ANSWERER';
export const APPROVERS = 'S0APPROVERS';
export const OWN_MENTIONS = [`user:${STARTER}`, `user:${ANSWERER}`, `subteam:${APPROVERS}`] as const;

/** Exports that build no Slack text from someone else's words, and why. */
export const HELPERS: Record<string, string> = {
  toolCallFields: 'reads a tool call; agentMessageText shows it',
  markdownToMrkdwn: 'works on text safeMrkdwn has already escaped (agentMessageText covers it)',
  layoutText: 'lays out a MessageText; run on every MessageText builder below',
  currentStepOf: 'picks the raw "now" line; sessionCard escapes it (covered there)',
  cardStateOf: 'builds CardState; sessionCard is covered',
  totalCostOf: 'reads a number',
  truncate: 'cuts any string; its callers escape',
  mrkdwn: 'wraps text its callers have escaped (mrkdwn by contract)',
  section: 'wraps text its callers have escaped (mrkdwn by contract)',
  splitText: 'splits text that layoutText has escaped',
  blockWords: 'the text fallback of blocks already built: render-fuzz runs it over every output',
  formatUsd: 'formats a number',
  slackDate: 'formats a time as Slack’s date token (numbers only)',
  placeOf: 'names a channel id the bot stored (a Slack id, never typed text)',
  progressBar: 'formats a number',
  formatDuration: 'formats a number',
  unreadableAsFreeText: 'builds a request, not a message; unreadableQuestionMessage is covered',
  encodeRef: 'an action value, not shown',
  channelName: "a channel's name: Slack's channel-name characters only (code-channels.test.ts)",
  decodeRef: 'reads an action value',
  refKeyOf: 'an action value key, not shown',
};

const options = (t: string, n: number): HumanInputOption[] =>
  Array.from({ length: n }, (_, i) => ({ id: `o${i}`, label: `${t} ${i}`, description: t }));

const question = (t: string, kind: HumanInputQuestion['kind'], i: number): HumanInputQuestion => ({
  id: `q${i}`,
  prompt: t,
  kind,
  required: i % 2 === 0,
  ...(kind === 'free_text' ? {} : { options: options(t, i === 1 ? 12 : 3) }),
});

/** One request of each kind and control layout, all worded by `t`. */
export function requestsOf(t: string): HumanInputRequest[] {
  const base = { inputId: 'in_1', prompt: t, raw: { t } };
  return [
    { ...base, kind: 'approval' },
    { ...base, kind: 'single_select', options: options(t, 3) },
    { ...base, kind: 'single_select', options: options(t, 120) },
    { ...base, kind: 'multi_select', options: options(t, 4), minSelections: 1, maxSelections: 2 },
    { ...base, kind: 'multi_select', options: options(t, 30) },
    { ...base, kind: 'free_text' },
    {
      ...base,
      kind: 'multi_question',
      questions: [
        question(t, 'free_text', 0),
        question(t, 'single_select', 1),
        question(t, 'multi_select', 2),
      ],
    },
  ];
}

const session = (t: string): SessionRecord => ({
  sessionId: 'sess_1',
  channelId: 'C0CHAN',
  cardTs: '1.1',
  startedBy: STARTER,
  goal: t,
  status: t,
  budget: 5,
  finished: false,
  createdAt: '2026-11-22T12:00:00.000Z',
  origin: t,
});

type Output = { name: string; output: unknown };

const channelState = (t: string, status: string): blocks.CodeChannelDisplay => ({
  sessionId: 'sess_1',
  goal: t,
  status,
  startedBy: STARTER,
  budget: 5,
  createdAt: '2026-11-22T12:00:00.000Z',
  now: Date.parse('2026-11-22T12:05:00.000Z'),
  snapshot: {
    status,
    rounds: [
      { status: t, summary: t },
      { roundNumber: 2, status: 'waiting_human' },
    ],
  },
});
type Covered = (t: string) => Output[];

const at = new Date('2026-11-22T12:05:00.000Z');
const messageShapes = (t: string): Array<Record<string, unknown>> => [
  { role: 'assistant', content: t, reasoning: t },
  { role: 'assistant', content: null, toolCalls: [{ function: { name: t, arguments: t } }, t] },
  { role: 'tool', name: t, content: t },
  { role: 'user', content: t },
  { role: t, content: t, tool_calls: [{ name: t, arguments: { t } }] },
  { content: { nested: t } },
];

/** The blocks of the agent's messages of `t`, as a question's post carries them. */
function carriedChatter(t: string) {
  return messageShapes(t).flatMap((m) => {
    const text = blocks.agentMessageText(m, { showReasoning: true });
    const laid = text ? blocks.layoutText(text, 'stem') : undefined;
    return laid?.kind === 'text' ? laid.parts.flatMap((part) => part.blocks) : [];
  });
}

/** Each covered export, by name: what it builds from `t`. */
export const COVERED: Record<string, Covered> = {
  agentMessageText: (t) =>
    messageShapes(t).flatMap((m, i) => {
      const text = blocks.agentMessageText(m, { showReasoning: true });
      return text ? [{ name: `agentMessageText#${i}`, output: blocks.layoutText(text, 'stem') }] : [];
    }),
  defuseMentions: (t) => [
    {
      name: 'defuseMentions (read as markdown)',
      output: { type: 'markdown', text: blocks.defuseMentions(t) },
    },
  ],
  safeMrkdwn: (t) => [{ name: 'safeMrkdwn', output: blocks.safeMrkdwn(t) }],
  safeMarkdown: (t) => [{ name: 'safeMarkdown', output: { type: 'markdown', text: blocks.safeMarkdown(t) } }],
  escapeMrkdwn: (t) => [{ name: 'escapeMrkdwn', output: blocks.escapeMrkdwn(t) }],
  plainSafe: (t) => [{ name: 'plainSafe', output: blocks.plainSafe(t) }],
  plainInert: (t) => [{ name: 'plainInert', output: blocks.plainInert(t) }],
  plain: (t) => [{ name: 'plain', output: blocks.plain(t, 3000) }],
  statusLabel: (t) => [{ name: 'statusLabel', output: blocks.statusLabel(t) }],
  homeView: (t) => [
    {
      name: 'homeView',
      output: blocks.homeView(
        [session(t)],
        requestsOf(t).map((request) => ({
          session: session(t),
          prompt: { request },
          answerers: `<!subteam^${APPROVERS}>`,
        })),
      ),
    },
  ],
  startModal: (t) => [{ name: 'startModal', output: blocks.startModal('C0CHAN', t) }],
  // Service keys: the only outside text is a key's mask (the start and end of what a person typed).
  keysHomeBlocks: (t) =>
    (['workspace', 'person'] as const).flatMap((slot) =>
      [true, false].map((mayManage) => ({
        name: `keysHomeBlocks ${slot} ${mayManage}`,
        output: {
          type: 'home',
          blocks: blocks.keysHomeBlocks({
            slot,
            linked: { hint: t, linkedBy: ANSWERER, linkedAt: at.toISOString() },
            mayManage,
            canLink: mayManage,
            signupAllowed: true,
          }),
        },
      })),
    ),
  linkKeyModal: (t) => [{ name: 'linkKeyModal', output: blocks.linkKeyModal('person', t) }],
  signupModal: () => [{ name: 'signupModal', output: blocks.signupModal('workspace') }],
  keyNotice: () =>
    (['removed', 'unreadable', 'rejected', 'forbidden'] as const).map((reason) => ({
      name: `keyNotice ${reason}`,
      output: { text: blocks.keyNotice({ reason, startedBy: STARTER, slot: 'person' }) },
    })),
  redirectModal: () => [{ name: 'redirectModal', output: blocks.redirectModal('sess_1') }],
  channelSettingsModal: (t) => [
    {
      name: 'channelSettingsModal',
      output: blocks.channelSettingsModal('C0CHAN', { budget: t, maxIterations: t, context: t }),
    },
  ],
  rejectModal: (t) => [{ name: 'rejectModal', output: blocks.rejectModal('sess_1', 'in_1', t) }],
  raiseBudgetModal: () => [{ name: 'raiseBudgetModal', output: blocks.raiseBudgetModal('sess_1', 3.5, 5) }],
  answerModal: (t) =>
    requestsOf(t).map((r) => ({ name: `answerModal ${r.kind}`, output: blocks.answerModal('sess_1', r) })),
  promptMessage: (t) =>
    requestsOf(t).map((r) => ({
      name: `promptMessage ${r.kind}`,
      output: blocks.promptMessage(r, {
        sessionId: 'sess_1',
        startedBy: STARTER,
        answerers: `<!subteam^${APPROVERS}>`,
      }),
    })),
  answeredPrompt: (t) =>
    requestsOf(t).flatMap((r) =>
      [
        { approved: false, freeText: t },
        { approved: true },
        { choiceId: 'o1' },
        { choiceIds: ['o0', 'o2'] },
        { freeText: t },
        { answers: { q0: t, q1: 'o1', q2: ['o0', 'o1'] } },
      ].map((answer) => ({
        name: `answeredPrompt ${r.kind}`,
        output: blocks.answeredPrompt(r, answer, ANSWERER, at),
      })),
    ),
  promptAsAnswered: (t) =>
    requestsOf(t).flatMap((request) => [
      {
        name: `promptAsAnswered ${request.kind}`,
        output: blocks.promptAsAnswered({
          request,
          answer: { freeText: t, approved: false },
          answeredBy: ANSWERER,
          answeredAt: at.toISOString(),
        }),
      },
      {
        name: `promptAsAnswered elsewhere ${request.kind}`,
        output: blocks.promptAsAnswered({ request, answer: null, answeredBy: null, answeredAt: null }),
      },
      {
        // Its post carried the agent's chatter: the answered edit shows it again, in blocks and text.
        name: `promptAsAnswered carrying chatter ${request.kind}`,
        output: blocks.promptAsAnswered({
          request,
          answer: null,
          answeredBy: null,
          answeredAt: null,
          carried: carriedChatter(t),
        }),
      },
    ]),
  costLimitMessage: () => [
    { name: 'costLimitMessage', output: blocks.costLimitMessage('sess_1', STARTER, 5) },
  ],
  costLimitResolved: (t) => [
    { name: 'costLimitResolved', output: blocks.costLimitResolved(STARTER, { resumed: false, status: t }) },
    {
      name: 'costLimitResolved resumed',
      output: blocks.costLimitResolved(STARTER, { resumed: true, budget: 9 }),
    },
  ],
  finalReport: (t) =>
    [
      { status: t, error: t, completionReport: { summary: t, details: [t, { t }], extra: t } },
      { status: 'completed', completionReport: t },
      { status: 'failed', completionReport: [t] },
      { status: 'completed', completionReport: { only: t } },
    ].map((s, i) => ({
      name: `finalReport#${i}`,
      output: blocks.layoutText(blocks.finalReport(s), 'report'),
    })),
  feedbackButtons: () => [{ name: 'feedbackButtons', output: blocks.feedbackButtons() }],
  unreadableRequest: (t) => [
    { name: 'unreadableRequest', output: blocks.layoutText(blocks.unreadableRequest(t, t), 'raw') },
    { name: 'unreadableRequest json', output: blocks.layoutText(blocks.unreadableRequest(t, { t }), 'raw') },
  ],
  startingCard: (t) => [{ name: 'startingCard', output: blocks.startingCard(t, STARTER, t) }],
  sessionCard: (t) =>
    [t, 'running', 'completed'].map((status) => ({
      name: `sessionCard ${status === t ? 'unknown status' : status}`,
      output: blocks.sessionCard({
        sessionId: 'sess_1',
        goal: t,
        status,
        startedBy: STARTER,
        totalCost: 1,
        budget: 5,
        rounds: 2,
        createdAt: '2026-11-22T12:00:00.000Z',
        now: at.getTime(),
        completedAt: null,
        origin: t,
        currentStep: blocks.currentStepOf({ role: 'assistant', content: t }) ?? t,
      }),
    })),
  cancelButton: (t) => [{ name: 'cancelButton', output: blocks.cancelButton('sess_1', t) }],
  contextBar: (t) =>
    [t, 'running', 'completed'].map((status) => ({
      name: `contextBar ${status === t ? 'unknown status' : status}`,
      output: blocks.contextBar(channelState(t, status)),
    })),
  planView: (t) => [{ name: 'planView', output: blocks.planView(channelState(t, t)) }],
  questionsView: (t) => [
    {
      name: 'questionsView',
      output: blocks.questionsView(
        (['pending', 'answered'] as const).map((state) => ({
          inputId: 'in_1',
          prompt: t,
          state,
          answeredBy: state === 'answered' ? ANSWERER : null,
        })),
      ),
    },
  ],
  // A canvas is standard Markdown: read as a markdown block.
  reportCanvas: (t) => [
    {
      name: 'reportCanvas',
      output: {
        type: 'markdown',
        text: blocks.reportCanvas(t, { status: t, error: t, completionReport: { summary: t, details: [t] } }),
      },
    },
  ],
  reportAsMarkdown: (t) => [
    {
      name: 'reportAsMarkdown',
      output: {
        type: 'markdown',
        text: blocks.reportAsMarkdown({ status: 'completed', completionReport: t }),
      },
    },
  ],
  channelSummary: (t) => [
    {
      name: 'channelSummary',
      output: blocks.layoutText(
        blocks.channelSummary('C0CODE', blocks.finalReport({ status: t, completionReport: { summary: t } })),
        'summary',
      ),
    },
  ],
  channelMessageText: (t) =>
    messageShapes(t).flatMap((m, i) => {
      const text = blocks.channelMessageText(m, { showReasoning: true, fallbackId: 'msg:1' });
      return text ? [{ name: `channelMessageText#${i}`, output: blocks.layoutText(text, 'stem') }] : [];
    }),
  rawExcerpt: (t) => [{ name: 'rawExcerpt', output: blocks.rawExcerpt({ t }) }],
  unreadableQuestionMessage: (t) => [
    {
      name: 'unreadableQuestionMessage',
      output: blocks.unreadableQuestionMessage({
        sessionId: 'sess_1',
        startedBy: STARTER,
        inputId: 'in_1',
        raw: t,
      }),
    },
    {
      name: 'unreadableQuestionMessage no id',
      output: blocks.unreadableQuestionMessage({ sessionId: 'sess_1', startedBy: STARTER, raw: { t } }),
    },
  ],
};

/** The function exports of src/blocks that are neither covered nor helpers: each must be one or the other. */
export const unclassifiedExports = (): string[] =>
  Object.entries(blocks)
    .filter(([name, value]) => typeof value === 'function' && !(name in COVERED) && !(name in HELPERS))
    .map(([name]) => name);

/** Everything every covered builder makes of `t`. */
export const allOutputs = (t: string): Output[] => Object.values(COVERED).flatMap((build) => build(t));
