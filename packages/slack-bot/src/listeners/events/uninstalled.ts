import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context.js';

type Installs = NonNullable<ListenerContext['installs']>;
type Context = AllMiddlewareArgs['context'];

const idsOf = (context: Context) => ({
  teamId: context.teamId,
  enterpriseId: context.enterpriseId,
  isEnterpriseInstall: context.isEnterpriseInstall,
});

/** app_uninstalled: the workspace's tokens go, its sessions are no longer followed. */
export const appUninstalled =
  (installs: Installs) =>
  async ({ context }: SlackEventMiddlewareArgs<'app_uninstalled'> & AllMiddlewareArgs): Promise<void> => {
    await installs.uninstalled(idsOf(context), 'app_uninstalled');
  };

/** tokens_revoked: the same, when the bot's token is among those revoked. */
export const tokensRevoked =
  (installs: Installs) =>
  async ({
    context,
    event,
  }: SlackEventMiddlewareArgs<'tokens_revoked'> & AllMiddlewareArgs): Promise<void> => {
    await installs.revoked(idsOf(context), event.tokens);
  };
