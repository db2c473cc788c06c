import type { BlockAction, RespondFn } from '@slack/bolt';

/** Tells only the person who clicked (ephemeral, the clicked message left as it is). */
export const tell = (respond: RespondFn, text: string) =>
  respond({ response_type: 'ephemeral', replace_original: false, text });

/** The `value` of the clicked button (select and checkbox actions have none). */
export function clickedValue(body: BlockAction): string | undefined {
  const action = body.actions[0];
  return action && 'value' in action && typeof action.value === 'string' ? action.value : undefined;
}

/** The prompt message clicked, when it is a real message (an ephemeral copy can't be edited). */
export function clickedMessage(body: BlockAction): string | undefined {
  if (body.container?.is_ephemeral) return undefined;
  const ts: unknown = body.container?.message_ts;
  return typeof ts === 'string' ? ts : undefined;
}

/**
 * The conversation the clicked message is in (a message's click carries it; App Home's doesn't): in the
 * session's own channel the clicker is looking at the session.
 */
export function clickedIn(body: BlockAction): string | undefined {
  const container: unknown = body.container?.channel_id;
  return body.channel?.id ?? (typeof container === 'string' ? container : undefined);
}
