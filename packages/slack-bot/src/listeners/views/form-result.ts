import type { SlackViewMiddlewareArgs } from '@slack/bolt';
import type { FormResult } from '../../services/outcome.js';

/** Acks a checked form: its errors keep it open; otherwise it closes and the work runs after. */
export async function settleForm(ack: SlackViewMiddlewareArgs['ack'], result: FormResult): Promise<void> {
  if (!result.ok) {
    await ack({ response_action: 'errors', errors: result.errors });
    return;
  }
  await ack();
  await result.run();
}
