import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Ticking a checkbox sends an action too; the answer goes with Submit. */
export const acknowledgeOnly = async ({ ack }: Args): Promise<void> => {
  await ack();
};
