import type { SlackViewMiddlewareArgs } from '@slack/bolt';
import type { FormResult } from '../../services/outcome.js';

/**
 * How long a form's checks may hold its ack. Slack waits 3 s and then shows the person an error; the
 * checks that need the store or the service (who may answer, whether a key works) usually take a few
 * milliseconds, and on a busy machine the budget keeps the ack well inside Slack's window.
 */
export const FORM_ACK_BUDGET_MS = 800;

/** Where a form's outcome goes when it comes after the form has closed: privately, to the person. */
export type LateRefusal = (errors: Record<string, string>) => Promise<unknown>;

const pending = Symbol('pending');

/**
 * Acks a checked form: its errors keep it open; otherwise it closes and the work runs after. Checks that
 * take longer than the budget don't hold the ack: the form closes at the budget, and a refusal that comes
 * later is told privately (`late`), what was typed with it.
 */
export async function settleForm(
  ack: SlackViewMiddlewareArgs['ack'],
  checked: FormResult | Promise<FormResult>,
  late?: LateRefusal,
  budgetMs = FORM_ACK_BUDGET_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<typeof pending>((resolve) => {
    timer = setTimeout(() => resolve(pending), budgetMs);
  });
  const first = await Promise.race([Promise.resolve(checked), budget]);
  clearTimeout(timer);
  if (first === pending) {
    await ack();
    const result = await checked;
    if (result.ok) await result.run();
    else await late?.(result.errors);
    return;
  }
  if (!first.ok) {
    await ack({ response_action: 'errors', errors: first.errors });
    return;
  }
  await ack();
  await first.run();
}

/** What a late refusal needs of Bolt's client: a message to the person's DM with the app. */
interface Poster {
  chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> };
}

/**
 * A refusal that came after the form closed, in the person's DM with the app (a modal has no channel of
 * its own), with what they typed, so nothing they wrote is lost.
 */
export const tellLate =
  (client: Poster, userId: string, typed: Record<string, string | string[] | undefined>): LateRefusal =>
  (errors) => {
    const reasons = [...new Set(Object.values(errors))].map((e) => `• ${e}`).join('\n');
    const kept = Object.values(typed)
      .flatMap((v) => (typeof v === 'string' ? [v] : []))
      .map((v) => `> ${v.replaceAll('\n', '\n> ')}`)
      .join('\n');
    const text = `⚠️ Your form was not used:\n${reasons}${kept ? `\nWhat you typed:\n${kept}` : ''}`;
    return client.chat.postMessage({ channel: userId, text });
  };
