import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { SqlStore } from '../../src/index.js';
import {
  InstallationUnreadableError,
  SealedInstallations,
  UnsealedTokenError,
} from '../../src/services/installs/sealed.js';
import { KeyCipher } from '../../src/services/keys/index.js';
import { describeWithStore, storeBackends } from './backends.js';
import { installationOf, slackTokens } from './installed-tokens.js';

const rawRow = async (store: SqlStore, key: string): Promise<string> => {
  const { rows } = await store.sql.query<{ installation: unknown }>(
    'SELECT installation FROM slack_installations WHERE key = $1',
    [key],
  );
  const value = rows[0]?.installation;
  return typeof value === 'string' ? value : JSON.stringify(value);
};
const rnd = () => randomBytes(4).toString('hex').toUpperCase();

for (const backend of storeBackends('sealed_installs')) {
  describeWithStore(backend, `Slack tokens encrypted at rest (${backend.name})`, (store) => {
    it('each token is stored encrypted and comes back as it was; ids and expiry stay readable', async () => {
      const sealed = new SealedInstallations(store.installations, new KeyCipher(randomBytes(32)));
      const team = `T${rnd()}`;
      const tokens = slackTokens();
      await sealed.save(installationOf(team, tokens));
      const raw = await rawRow(store, team);
      for (const token of Object.values(tokens)) expect(raw).not.toContain(token);
      expect(raw).toContain(team);
      const found = await sealed.find(team);
      expect(found?.bot).toMatchObject({ token: tokens.bot, refreshToken: tokens.refresh, userId: 'UBOT' });
      expect(found?.user).toMatchObject({ token: tokens.user, refreshToken: tokens.userRefresh });
    });

    it('a ciphertext copied into another installation does not decrypt there (and says how to fix it)', async () => {
      const sealed = new SealedInstallations(store.installations, new KeyCipher(randomBytes(32)));
      const [a, b] = [`T${rnd()}`, `T${rnd()}`];
      await sealed.save(installationOf(a, slackTokens()));
      await sealed.save(installationOf(b, slackTokens()));
      const stolen = JSON.parse(await rawRow(store, a));
      await store.installations.save({ ...JSON.parse(await rawRow(store, b)), bot: stolen.bot });
      const error = await sealed.find(b).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InstallationUnreadableError);
      expect(String(error)).toMatch(
        /Slack tokens of T\w+ can't be read \(bot\.token: .*AGENT_KEY_ENCRYPTION_KEY/,
      );
      // The row the ciphertext came from still reads.
      await expect(sealed.find(a)).resolves.toBeDefined();
    });

    it('at start: a plain-text row (before encryption) is encrypted; rotation encrypts again under the new key', async () => {
      const team = `T${rnd()}`;
      const tokens = slackTokens();
      await store.installations.save(installationOf(team, tokens)); // as stored before this change
      expect(await rawRow(store, team)).toContain(tokens.bot);
      const oldKey = randomBytes(32);
      const before = new SealedInstallations(store.installations, new KeyCipher(oldKey));
      // A plain row is still read (a replica may run before the pass), then sealed by the pass.
      expect((await before.find(team))?.bot?.token).toBe(tokens.bot);
      const first = await before.sealStored();
      expect(first.encrypted).toBeGreaterThanOrEqual(1);
      expect(first.unreadable).not.toContain(team);
      const sealedRaw = await rawRow(store, team);
      for (const token of Object.values(tokens)) expect(sealedRaw).not.toContain(token);
      expect((await before.sealStored()).encrypted).toBe(0); // nothing plain left

      const newKey = randomBytes(32);
      const rotated = new SealedInstallations(store.installations, new KeyCipher(newKey, [oldKey]));
      expect((await rotated.find(team))?.user?.token).toBe(tokens.user);
      const second = await rotated.sealStored();
      expect(second.reencrypted).toBeGreaterThanOrEqual(1);
      // Once re-encrypted, the previous key is no longer needed.
      const newOnly = new SealedInstallations(store.installations, new KeyCipher(newKey));
      expect((await newOnly.find(team))?.bot?.refreshToken).toBe(tokens.refresh);
      // A key that made none of them reads none, and the pass names the workspace instead of failing.
      const stranger = new SealedInstallations(store.installations, new KeyCipher(randomBytes(32)));
      await expect(stranger.find(team)).rejects.toBeInstanceOf(InstallationUnreadableError);
      expect((await stranger.sealStored()).unreadable).toContain(team);
      await expect(store.installations.refreshes(team)).resolves.toBe(0); // sealing is not a refresh
    });

    it('once the sealing pass has run, a token planted in plain text is refused and logged, never quoted', async () => {
      const cipher = new KeyCipher(randomBytes(32));
      const logged: unknown[] = [];
      const logger = { error: (...args: unknown[]) => void logged.push(args) };
      await new SealedInstallations(store.installations, cipher, logger).sealStored();
      // Written to the database by someone without the key, as the bot never writes it.
      const team = `T${rnd()}`;
      const planted = slackTokens();
      await store.installations.save(installationOf(team, planted));
      // Any replica, including one started after the pass: the pass is recorded in the store.
      const replica = new SealedInstallations(store.installations, cipher, logger);
      const error = await replica.find(team).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsealedTokenError);
      expect(String(error)).toMatch(/Slack tokens of T\w+ are refused: bot\.token is stored unencrypted/);
      const claim = { id: 'c1', ttlMs: 60_000 };
      await expect(replica.claimRefresh(team, () => true, claim)).rejects.toBeInstanceOf(UnsealedTokenError);
      await expect(replica.rewrite(team, (i) => i)).rejects.toBeInstanceOf(UnsealedTokenError);
      expect(logged.length).toBeGreaterThan(0);
      const said = JSON.stringify(logged) + String(error);
      expect(said).toContain(team);
      for (const token of Object.values(planted)) expect(said).not.toContain(token);
      // What the bot itself saves is sealed, and reads as ever.
      const own = slackTokens();
      await replica.save(installationOf(team, own));
      expect((await replica.find(team))?.bot?.token).toBe(own.bot);
    });
  });
}
