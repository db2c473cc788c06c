import { randomBytes } from 'node:crypto';
import { SealedInstallations } from '../../src/services/installs/sealed.js';
import { KeyCipher } from '../../src/services/keys/index.js';
import type { SqlStore } from '../../src/store/index.js';
import type { SlackInstallation } from '../../src/store/installations.js';

/** Slack-shaped tokens, random per run: found anywhere on disk or in a table, they were stored as they are. */
export const slackTokens = () => {
  const tail = () => randomBytes(12).toString('hex');
  return {
    bot: `xoxb-${tail()}`,
    refresh: `xoxe-1-${tail()}`,
    user: `xoxp-${tail()}`,
    userRefresh: `xoxe-1-${tail()}`,
  };
};

export const installationOf = (team: string, t: ReturnType<typeof slackTokens>): SlackInstallation =>
  ({
    team: { id: team, name: team },
    enterprise: undefined,
    isEnterpriseInstall: false,
    appId: 'A1',
    tokenType: 'bot',
    bot: {
      id: 'B1',
      userId: 'UBOT',
      token: t.bot,
      refreshToken: t.refresh,
      expiresAt: 1,
      scopes: ['chat:write'],
    },
    user: { id: 'U1', token: t.user, refreshToken: t.userRefresh, expiresAt: 1, scopes: ['search:read'] },
  }) as SlackInstallation;

/**
 * As the bot does it: an install (the OAuth flow's save) and a token rotation (a claimed refresh, its
 * result saved under the claim), through the sealed repository. Returns every token that was ever handed to the store.
 */
export async function installAndRotate(
  store: SqlStore,
  cipher = new KeyCipher(randomBytes(32)),
): Promise<string[]> {
  const sealed = new SealedInstallations(store.installations, cipher);
  const first = slackTokens();
  const next = slackTokens();
  await sealed.save(installationOf('T1', first));
  const claim = { id: 'replica-1', ttlMs: 60_000 };
  const answer = await sealed.claimRefresh('T1', (found) => (found.bot?.expiresAt ?? 0) < 1_000, claim);
  if (answer.state !== 'claimed') throw new Error(`the refresh was not claimed: ${answer.state}`);
  const found = answer.installation;
  const rotated = {
    ...found,
    bot: { ...found.bot, token: next.bot, refreshToken: next.refresh, expiresAt: 2_000_000_000 },
    user: { ...found.user, token: next.user, refreshToken: next.userRefresh },
  } as SlackInstallation;
  if (!(await sealed.finishRefresh('T1', claim.id, rotated))) throw new Error('the claim was lost');
  if ((await sealed.find('T1'))?.bot?.token !== next.bot)
    throw new Error('the rotation did not store the new token');
  if ((await sealed.find('T1'))?.user?.token !== next.user)
    throw new Error('the user token did not come back');
  return [...Object.values(first), ...Object.values(next)];
}
