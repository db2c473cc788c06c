import {
  type AnswerInput,
  type AnswerIssue,
  describeAnswer,
  type HumanInputRequest,
} from '@agent-sessions/core';
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs } from '@slack/bolt';
import { escapeMrkdwn } from '../../blocks/text.js';
import type { PrepareResult } from '../../services/session-service.js';
import type { ListenerContext } from '../context.js';
import { inputOf, metadataOf, textOf } from './values.js';

type Args = SlackViewMiddlewareArgs & AllMiddlewareArgs;
type Ref = { sessionId: string; inputId: string };

/** Where an answer problem is shown: the issue's field mapped to the modal block holding that input. */
function errorsFor(
  issues: AnswerIssue[],
  request: HumanInputRequest,
  textBlock: string,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    let block = textBlock;
    if (issue.field.startsWith('answers.')) {
      const id = issue.field.slice('answers.'.length);
      const index = (request.questions ?? []).findIndex((q) => q.id === id);
      if (index >= 0) block = `q_${index}`;
    }
    errors[block] = errors[block] ? `${errors[block]}; ${issue.message}` : issue.message;
  }
  return errors;
}

/** Claims and, once the form has closed, sends — or keeps the form open with the reason. */
async function finish(
  ctx: ListenerContext,
  args: Args,
  prepared: PrepareResult,
  request: HumanInputRequest | undefined,
  textBlock: string,
): Promise<void> {
  const { ack, client, body } = args;
  if (!prepared.ok) {
    const errors =
      prepared.kind === 'invalid' && request
        ? errorsFor(prepared.issues, request, textBlock)
        : { [textBlock]: prepared.kind === 'invalid' ? 'Check your answer' : prepared.message };
    await ack({ response_action: 'errors', errors });
    return;
  }
  await ack();
  const result = await ctx.sessions.sendAnswer(prepared.claimed);
  if (!result.ok) {
    await client.chat.postEphemeral({
      channel: prepared.claimed.prompt.channelId,
      user: body.user.id,
      text: `⚠️ ${result.message}\nYour answer, so you don't have to type it again:\n> ${escapeMrkdwn(
        describeAnswer(prepared.claimed.request, prepared.claimed.answer),
      )}`,
    });
  }
}

export const rejectSubmitted =
  (ctx: ListenerContext) =>
  async (args: Args): Promise<void> => {
    const ref = metadataOf<Ref>(args.view);
    if (!ref.sessionId || !ref.inputId) {
      await args.ack({
        response_action: 'errors',
        errors: { reason: 'This form lost its question; try again' },
      });
      return;
    }
    const reason = textOf(args.view, 'reason');
    const input: AnswerInput = { approved: false, ...(reason ? { reason } : {}) };
    const prepared = await ctx.sessions.prepareAnswer(ref.sessionId, ref.inputId, args.body.user.id, input);
    const prompt = await ctx.store.getPrompt(ref.sessionId, ref.inputId);
    await finish(ctx, args, prepared, prompt?.request as HumanInputRequest | undefined, 'reason');
  };

export const answerSubmitted =
  (ctx: ListenerContext) =>
  async (args: Args): Promise<void> => {
    const ref = metadataOf<Ref>(args.view);
    const prompt =
      ref.sessionId && ref.inputId ? await ctx.store.getPrompt(ref.sessionId, ref.inputId) : undefined;
    if (!prompt || !ref.sessionId || !ref.inputId) {
      await args.ack({
        response_action: 'errors',
        errors: { answer: 'This question is not known here any more' },
      });
      return;
    }
    const request = prompt.request as HumanInputRequest;
    let input: AnswerInput;
    if (request.kind === 'multi_question') {
      const answers: Record<string, unknown> = {};
      (request.questions ?? []).forEach((question, index) => {
        const given = inputOf(args.view, `q_${index}`);
        if (given === undefined) return;
        // Options travel as their index (ids may exceed Slack's 75-character option values).
        const toId = (v: string) => question.options?.[Number(v)]?.id ?? v;
        if (question.kind === 'free_text') answers[question.id] = given;
        else if (question.kind === 'single_select') answers[question.id] = toId(String(given));
        else answers[question.id] = (Array.isArray(given) ? given : [given]).map(toId);
      });
      input = { answers };
    } else {
      const text = textOf(args.view, 'answer');
      input = text === undefined ? {} : { freeText: text };
    }
    const textBlock = request.kind === 'multi_question' ? 'q_0' : 'answer';
    const prepared = await ctx.sessions.prepareAnswer(ref.sessionId, ref.inputId, args.body.user.id, input);
    await finish(ctx, args, prepared, request, textBlock);
  };
