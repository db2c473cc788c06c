import type { BlockAction, RespondFn } from '@slack/bolt';

/** Tells only the person who clicked (ephemeral, the clicked message left as it is). */
export const tell = (respond: RespondFn, text: string) =>
  respond({ response_type: 'ephemeral', replace_original: false, text });

/** The `value` of the clicked button or element. */
export function clickedValue(body: BlockAction): string | undefined {
  const action = body.actions[0] as { value?: string } | undefined;
  return action?.value;
}
