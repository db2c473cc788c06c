import { randomBytes } from 'node:crypto';
import type { SandboxView } from '@agent-sessions/slack-sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, allLogLines, BOB, CAROL, CHANNEL, textOf, useHarness, WAIT_MS } from './harness.js';
import { isPrompt } from './helpers.js';
import { homeOf, homeText, pressInHome } from './home-tab.js';
import { afterLeasePasses } from './lease-passes.js';

// Under AGENT_KEYS=per-person every session runs under its starter's own service key. Alice,
// Bob and Carol each sign up with the emulator (POST /api/auth/signup) and get a key for their account
// there (the service's app, out of band); each account is its own tenant, and the emulator refuses a key
// another account's session (403): an answer that gets through went with the owner's key.
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const PASSWORD = 'correct horse';
interface Account {
  key: string;
  accountId: string;
  keyIndex: string;
}
const accounts = {} as Record<'alice' | 'bob' | 'carol', Account>;

const h = useHarness({
  env: { AGENT_KEYS: 'per-person', AGENT_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY, AGENT_ALLOW_SIGNUP: 'true' },
});

beforeAll(async () => {
  for (const name of ['alice', 'bob', 'carol'] as const) {
    const email = `${name}-${randomBytes(4).toString('hex')}@example.com`;
    const signup = await fetch(`${h.emulator.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    if (!signup.ok) throw new Error(`signup answered ${signup.status}`);
    const { key, accountId, keyIndex } = await h.emulator.admin.mintKey(email);
    accounts[name] = { key, accountId, keyIndex: String(keyIndex) };
  }
});

const ws = () => h.sandbox.workspace;
const slot = (user: string) => `person:${ws().seed.teamId}:${user}`;

async function openHome(user: string): Promise<SandboxView> {
  await h.driver.appHomeOpened({ user, eventId: `Ev${randomBytes(6).toString('hex')}` });
  return ws().waitFor(() => homeOf(h.sandbox, user), { what: `${user}'s Home tab`, timeoutMs: WAIT_MS });
}

/** Presses a Home tab button that opens a form, and waits for the form. */
async function formFromHome(user: string, actionId: string): Promise<SandboxView> {
  const before = h.driver.openModal(user)?.id;
  await pressInHome(h.sandbox, h.driver, user, actionId);
  return ws().waitFor(
    () => {
      const modal = h.driver.openModal(user);
      return modal && modal.id !== before ? modal : undefined;
    },
    { what: `the form behind ${actionId}`, timeoutMs: WAIT_MS },
  );
}

async function submitKey(user: string, view: SandboxView, key: string) {
  return h.driver.submitView({ user, viewId: view.id, values: { api_key: { value: key } } });
}

const errorsOf = (response: { body: unknown }) =>
  (response.body as { response_action?: string; errors?: Record<string, string> } | undefined)?.errors;

const toldLate = new Set<string>();
/**
 * A form's refusal as its person sees it: under the field while the service's check fits in the ack's
 * budget (the form stays open); past it (a busy machine), in their DM with the app, and the form closed.
 */
async function refusalOf(response: { body: unknown }, field: string) {
  const inline = errorsOf(response)?.[field];
  if (inline) return { text: inline, closed: false };
  const late = await ws().waitFor(
    () =>
      [...ws().messages.values()]
        .flat()
        .find((m) => /Your form was not used/.test(textOf(m)) && !toldLate.has(m.ts)),
    { what: 'the refusal, told late in the DM', timeoutMs: WAIT_MS },
  );
  toldLate.add(late.ts);
  return { text: textOf(late), closed: true };
}

async function linkKey(user: string, key: string): Promise<void> {
  await openHome(user);
  const form = await formFromHome(user, 'keys_link');
  const response = await submitKey(user, form, key);
  expect(errorsOf(response)).toBeUndefined();
  await ws().waitFor(() => (homeText(homeOf(h.sandbox, user)).includes(key.slice(-4)) ? true : undefined), {
    what: `${user}'s key shown masked`,
    timeoutMs: WAIT_MS,
  });
}

/** Links `key` for `user` unless it is their linked key already: a test that needs it runs alone too. */
async function ensureLinked(user: string, key: string): Promise<void> {
  const row = await h.store.serviceKeys.get(slot(user));
  if (row?.ciphertext && row.hint === `emu_…${key.slice(-4)}`) return;
  await linkKey(user, key);
}

const byKey = async (index: string) => (await h.emulator.admin.stats()).byKeyIndex[index] ?? 0;

describe('service keys per person (AGENT_KEYS=per-person)', () => {
  it('without a key of their own, a person can’t start: told where to link one; nothing reaches the service', async () => {
    const response = await h.driver.command({
      user: ALICE,
      channel: CHANNEL,
      text: 'start scenario:approval ship it',
    });
    expect(response.status).toBe(200);
    await h.waitForEphemeral(ALICE, /haven’t linked one yet: open my \*Home\* tab/);
    expect(await h.emulator.admin.sessions()).toEqual([]);
  });

  it('Alice links hers in App Home: a wrong key is refused under the field, hers is checked, kept encrypted, shown masked', async () => {
    const home = await openHome(ALICE);
    expect(homeText(home)).toContain('Your service key');
    let form = await formFromHome(ALICE, 'keys_link');
    const wrong = await refusalOf(await submitKey(ALICE, form, 'emu_no_such_key_0000'), 'api_key');
    expect(wrong.text).toMatch(/refused this key \(401\)/);
    if (wrong.closed) form = await formFromHome(ALICE, 'keys_link');
    const spaced = await submitKey(ALICE, form, 'emu two words');
    expect(errorsOf(spaced)?.api_key).toMatch(/no spaces/);
    const ok = await submitKey(ALICE, form, accounts.alice.key);
    expect(errorsOf(ok)).toBeUndefined();
    const shown = await ws().waitFor(
      () => {
        const text = homeText(homeOf(h.sandbox, ALICE));
        return text.includes(`emu_…${accounts.alice.key.slice(-4)}`) ? text : undefined;
      },
      { what: 'the masked key on the Home tab', timeoutMs: WAIT_MS },
    );
    expect(shown).not.toContain(accounts.alice.key);
    expect(shown).toContain('keys_remove');
    const row = await h.store.serviceKeys.get(slot(ALICE));
    expect(row?.ciphertext).not.toContain(accounts.alice.key);
    expect(JSON.stringify(row)).not.toContain(accounts.alice.key);
  });

  it('her session is created with her key, and Bob’s answer to it goes with her key, not his', async () => {
    await ensureLinked(ALICE, accounts.alice.key);
    await ensureLinked(BOB, accounts.bob.key);
    const { sessionId, cardTs } = await h.start('scenario:approval ship it', ALICE);
    expect((await h.emulator.admin.session(sessionId))?.accountId).toBe(accounts.alice.accountId);
    expect(await h.store.serviceKeys.refOf(sessionId)).toBe(slot(ALICE));
    const prompt = await h.waitInThread(cardTs, isPrompt, 'the approval prompt');
    const bobBefore = await byKey(accounts.bob.keyIndex);
    const aliceBefore = await byKey(accounts.alice.keyIndex);
    await h.driver.act({ user: BOB, channel: CHANNEL, ts: prompt.ts, actionId: 'input_approve' });
    await expect
      .poll(async () => (await h.emulator.admin.session(sessionId))?.humanInputs[0]?.answer, {
        timeout: WAIT_MS,
      })
      .toEqual({ approved: true });
    await h.waitForCard(cardTs, (t) => /Completed/.test(t), 'the session completed');
    expect(await byKey(accounts.bob.keyIndex)).toBe(bobBefore);
    expect(await byKey(accounts.alice.keyIndex)).toBeGreaterThan(aliceBefore);
  });

  it('crafted: Carol can’t start on anyone’s key, and a form naming Alice’s slot links nothing there', async () => {
    const sessions = (await h.emulator.admin.sessions()).length;
    await h.driver.command({
      user: CAROL,
      // #general: Carol is in it (a channel she isn't in refuses her first).
      channel: 'C0GENERAL',
      text: 'start scenario:approval on someone else',
    });
    await h.waitForEphemeral(CAROL, /haven’t linked one yet/);
    expect((await h.emulator.admin.sessions()).length).toBe(sessions);

    const alice = await h.store.serviceKeys.get(slot(ALICE));
    await openHome(CAROL);
    const form = await formFromHome(CAROL, 'keys_link');
    // The form's metadata rewritten to name Alice's slot: the bot takes the slot from who submits.
    ws().saveView({
      ...form,
      private_metadata: JSON.stringify({ slot: 'person', ref: slot(ALICE), userId: ALICE }),
    });
    expect(errorsOf(await submitKey(CAROL, form, accounts.carol.key))).toBeUndefined();
    await expect
      .poll(async () => (await h.store.serviceKeys.get(slot(CAROL)))?.hint)
      .toBe(`emu_…${accounts.carol.key.slice(-4)}`);
    expect(await h.store.serviceKeys.get(slot(ALICE))).toEqual(alice);
  });

  it('a removed key: the thread says so once, the session waits; linked again, it is followed again', async () => {
    await ensureLinked(ALICE, accounts.alice.key);
    const { sessionId, cardTs } = await h.start(
      'scenario:long index the wiki --max-iterations 100000',
      ALICE,
    );
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await openHome(ALICE);
    await pressInHome(h.sandbox, h.driver, ALICE, 'keys_remove');
    const notice = /stopped following this session: the Agent Session Service key it runs under was removed/;
    const said = await h.waitInThread(cardTs, (m) => notice.test(textOf(m)), 'the removed-key notice');
    expect(textOf(said)).toMatch(/link your key on my \*Home\* tab/);
    await expect.poll(() => h.bot.follower.isFollowing(sessionId), { timeout: WAIT_MS }).toBe(false);
    // The Home is drawn again after the click's ack, as the follower lets go: either may come first.
    await expect
      .poll(() => homeText(homeOf(h.sandbox, ALICE)), { timeout: WAIT_MS })
      .toContain('No key linked');
    expect((await h.store.serviceKeys.get(slot(ALICE)))?.ciphertext).toBe('');
    // Some lease renewals later: still waiting, still one notice.
    await afterLeasePasses(h.bot, 3);
    expect(h.bot.follower.isFollowing(sessionId)).toBe(false);
    expect(h.thread(cardTs).filter((m) => notice.test(textOf(m)))).toHaveLength(1);

    await linkKey(ALICE, accounts.alice.key);
    await expect.poll(() => h.bot.follower.isFollowing(sessionId), { timeout: WAIT_MS }).toBe(true);
  });

  it('a key the service revokes (401): the thread says so once, with how to fix it, and following stops', async () => {
    await ensureLinked(ALICE, accounts.alice.key);
    await ensureLinked(BOB, accounts.bob.key);
    const alices = await h.start('scenario:long index the docs --max-iterations 100000', ALICE);
    await h.waitForCard(alices.cardTs, (t) => /Running/.test(t), 'Alice’s running');
    const { sessionId, cardTs } = await h.start('scenario:long index the blog --max-iterations 100000', BOB);
    await h.waitForCard(cardTs, (t) => /Running/.test(t), 'running');
    await h.emulator.admin.revokeKey(accounts.bob.key);
    const notice = /refused the key it runs under \(401\)/;
    const said = await h.waitInThread(cardTs, (m) => notice.test(textOf(m)), 'the refused-key notice');
    expect(textOf(said)).toMatch(/<@U0BOB>, link your key on my \*Home\* tab/);
    await expect.poll(() => h.bot.follower.isFollowing(sessionId), { timeout: WAIT_MS }).toBe(false);
    // Some lease renewals later (each a chance to follow it again and hit the 401 anew), still one notice.
    await afterLeasePasses(h.bot, 3);
    expect(h.thread(cardTs).filter((m) => notice.test(textOf(m)))).toHaveLength(1);
    // The other sessions' keys go on: Alice's is followed still.
    expect(h.bot.follower.isFollowing(alices.sessionId)).toBe(true);
  });

  it('signup from App Home: the account is made with the service; a key is linked only if the service gave one', async () => {
    await openHome(CAROL);
    const form = await formFromHome(CAROL, 'keys_signup');
    const email = `carol-${randomBytes(4).toString('hex')}@example.com`;
    const short = await h.driver.submitView({
      user: CAROL,
      viewId: form.id,
      values: { email: { value: 'not-an-email' }, password: { value: '123' } },
    });
    expect(errorsOf(short)).toEqual({
      email: 'Enter an email address, like you@example.com',
      password: 'The password needs at least 6 characters',
    });
    // The contract's signup answer carries no API key; a service (or emulator) that gives one with the
    // account gets it linked. Asked of the service itself first, so the test holds either way.
    const probe = (await (
      await fetch(`${h.emulator.url}/api/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `probe-${email}`, password: PASSWORD }),
      })
    ).json()) as { apiKey?: unknown };
    const made = await h.driver.submitView({
      user: CAROL,
      viewId: form.id,
      values: { email: { value: email }, password: { value: PASSWORD } },
    });
    if (typeof probe.apiKey === 'string') {
      expect(errorsOf(made)).toBeUndefined();
      // Carol's slot now holds the new account's key, not the one she linked before.
      await expect
        .poll(async () => (await h.store.serviceKeys.get(slot(CAROL)))?.hint)
        .not.toBe(`emu_…${accounts.carol.key.slice(-4)}`);
      return;
    }
    // Nothing typed is lost: the form stays open and says what happened under the email (or, past the
    // ack's budget, the DM says it).
    const madeRefusal = await refusalOf(made, 'email');
    expect(madeRefusal.text).toMatch(/made the account but gave no API key/);
    const again = await h.driver.submitView({
      user: CAROL,
      viewId: (madeRefusal.closed ? await formFromHome(CAROL, 'keys_signup') : form).id,
      values: { email: { value: email }, password: { value: PASSWORD } },
    });
    expect((await refusalOf(again, 'email')).text).toMatch(/The service said: .*already exists/);
  });

  it('a service slower than the ack’s budget: the form closes, and the refusal comes in the DM with the email', async () => {
    await openHome(CAROL);
    const form = await formFromHome(CAROL, 'keys_signup');
    // The account exists (made just here): the service refuses, after the form had to close.
    const email = `late-${randomBytes(4).toString('hex')}@example.com`;
    await fetch(`${h.emulator.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    await h.emulator.admin.setFaults({ latencyMs: 2_000, pathPattern: '^POST /api/auth/signup' });
    try {
      const response = await h.driver.submitView({
        user: CAROL,
        viewId: form.id,
        values: { email: { value: email }, password: { value: PASSWORD } },
      });
      expect(errorsOf(response)).toBeUndefined();
      const late = await refusalOf(response, 'email');
      expect(late.closed).toBe(true);
      expect(late.text).toMatch(/The service said: .*already exists/);
      // What was typed comes with it, but the password.
      expect(late.text).toContain(email);
      expect(late.text).not.toContain(PASSWORD);
    } finally {
      await h.emulator.admin.clearFaults();
    }
  });

  it('no key, encryption key or password appears in any log line or anything posted', () => {
    const posted = [...ws().messages.values()].flat().map((m) => textOf(m));
    const views = [...ws().views.values()].map((v) => JSON.stringify(v.blocks));
    const secrets = [accounts.alice.key, accounts.bob.key, accounts.carol.key, ENCRYPTION_KEY, PASSWORD];
    const leaks = [...allLogLines, ...posted, ...views].filter((line) =>
      secrets.some((s) => line.includes(s)),
    );
    expect(leaks).toEqual([]);
  });
});
