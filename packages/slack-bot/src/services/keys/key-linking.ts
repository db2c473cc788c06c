import type { SignupRequest } from '@agent-sessions/core';
import { ServiceError, ValidationError } from '@agent-sessions/core';
import type { KnownBlock, ModalView } from '@slack/types';
import { type KeySlot, keysHomeBlocks, linkKeyModal, signupModal } from '../../blocks/keys.js';
import type { Logger } from '../../logger.js';
import type { FormResult, Outcome } from '../outcome.js';
import { NO_ENCRYPTION_KEY, NO_KEY_SLOT, NoKeySlotError } from './key-errors.js';
import { KEY_CALL_TIMEOUT_MS, personRef, type ServiceKeys, workspaceRef } from './service-keys.js';

export type KeyFormValues = Record<string, string | string[] | undefined>;

/**
 * Linking keys in App Home: the section shown there, the link and signup forms, removal. The slot is
 * always the one the mode gives the person acting — their own, or their workspace's — never one a payload
 * names; the workspace's is managed by its admins and the bot's approvers only (`mayManage`).
 */
export class KeyLinking {
  constructor(
    private readonly deps: {
      keys: ServiceKeys;
      /** Slack's workspace admins and owners, and the bot's approvers: who manages the workspace's key. */
      isAdmin: (userId: string) => Promise<boolean>;
      /** Draws the person's Home tab again (after a key is linked or removed). */
      refreshHome: (userId: string) => Promise<void>;
      /** `POST /api/auth/signup`, when AGENT_ALLOW_SIGNUP=true. */
      signup?: (body: SignupRequest, timeoutMs: number) => Promise<Record<string, unknown>>;
      logger: Logger;
    },
  ) {}

  #slot(): KeySlot {
    return this.deps.keys.mode === 'per-person' ? 'person' : 'workspace';
  }

  /** The slot `userId` manages; undefined under OAuth when the request names no workspace (NO_KEY_SLOT). */
  async #target(userId: string, teamId?: string) {
    const team = await this.deps.keys.teamOf(teamId).catch((error: unknown) => {
      if (error instanceof NoKeySlotError) return undefined;
      throw error;
    });
    if (team === undefined) return undefined;
    const slot = this.#slot();
    return slot === 'person'
      ? { slot, team, ref: personRef(team, userId), owner: userId }
      : { slot, team, ref: workspaceRef(team), owner: null };
  }

  /**
   * Whether `userId` manages the workspace's key (its Slack admins and owners, the bot's approvers),
   * whatever the key mode: who else App Home lets act for the workspace (others' MCP tokens).
   */
  managesWorkspace(userId: string): Promise<boolean> {
    return this.deps.isAdmin(userId);
  }

  async #mayManage(userId: string, slot: KeySlot): Promise<boolean> {
    return slot === 'person' || (await this.deps.isAdmin(userId));
  }

  /** The Home tab's key section for this person. */
  async homeBlocks(userId: string, teamId?: string): Promise<KnownBlock[]> {
    const target = await this.#target(userId, teamId);
    if (!target) return [];
    const linked = await this.deps.keys.linked(target.ref);
    return keysHomeBlocks({
      slot: target.slot,
      ...(linked ? { linked } : {}),
      mayManage: await this.#mayManage(userId, target.slot),
      canLink: this.deps.keys.canLink,
      signupAllowed: this.deps.signup !== undefined,
    });
  }

  /** The link or signup form, for whoever may manage the slot. */
  async openForm(
    kind: 'link' | 'signup',
    userId: string,
    teamId?: string,
  ): Promise<Outcome<{ view: ModalView }>> {
    const target = await this.#target(userId, teamId);
    if (!target) return { ok: false, message: NO_KEY_SLOT };
    const refused = await this.#refusal(userId, target.slot);
    if (refused) return { ok: false, message: refused };
    if (kind === 'signup' && !this.deps.signup)
      return { ok: false, message: 'Creating accounts here is off (AGENT_ALLOW_SIGNUP).' };
    const linked = await this.deps.keys.linked(target.ref);
    return {
      ok: true,
      view: kind === 'link' ? linkKeyModal(target.slot, linked?.hint) : signupModal(target.slot),
    };
  }

  async #refusal(userId: string, slot: KeySlot): Promise<string | undefined> {
    if (!(await this.#mayManage(userId, slot)))
      return 'Only a workspace admin or one of the bot’s approvers can change the workspace’s service key.';
    if (!this.deps.keys.canLink) return NO_ENCRYPTION_KEY;
    return undefined;
  }

  /** The link form: the key checked with the service before it is kept; problems under the field. */
  async submitLink(userId: string, values: KeyFormValues, teamId?: string): Promise<FormResult> {
    const target = await this.#target(userId, teamId);
    if (!target) return { ok: false, errors: { api_key: NO_KEY_SLOT } };
    const refused = await this.#refusal(userId, target.slot);
    if (refused) return { ok: false, errors: { api_key: refused } };
    const apiKey = typeof values.api_key === 'string' ? values.api_key.trim() : '';
    if (apiKey === '') return { ok: false, errors: { api_key: 'Paste the API key' } };
    if (/\s/.test(apiKey))
      return { ok: false, errors: { api_key: 'An API key has no spaces or line breaks' } };
    const checked = await this.deps.keys.check(apiKey);
    if (!checked.ok) return { ok: false, errors: { api_key: checked.message } };
    await this.deps.keys.link({
      ref: target.ref,
      teamId: target.team,
      userId: target.owner,
      apiKey,
      by: userId,
    });
    return { ok: true, run: () => this.deps.refreshHome(userId) };
  }

  /** The signup form: an account made with the service, and the key it returns linked. */
  async submitSignup(userId: string, values: KeyFormValues, teamId?: string): Promise<FormResult> {
    const target = await this.#target(userId, teamId);
    if (!target) return { ok: false, errors: { email: NO_KEY_SLOT } };
    const refused = await this.#refusal(userId, target.slot);
    if (refused) return { ok: false, errors: { email: refused } };
    if (!this.deps.signup)
      return { ok: false, errors: { email: 'Creating accounts here is off (AGENT_ALLOW_SIGNUP).' } };
    const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
    const errors: Record<string, string> = {};
    const email = text('email').trim();
    const password = text('password');
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      errors.email = 'Enter an email address, like you@example.com';
    if (password.length < 6) errors.password = 'The password needs at least 6 characters';
    if (Object.keys(errors).length > 0) return { ok: false, errors };
    const displayName = text('display_name').trim();
    let response: Record<string, unknown>;
    try {
      // The form is answered at its ack's budget whatever this takes: a late outcome goes to the DM.
      response = await this.deps.signup(
        { email, password, ...(displayName ? { displayName } : {}) },
        KEY_CALL_TIMEOUT_MS,
      );
    } catch (error) {
      return { ok: false, errors: signupErrors(error) };
    }
    const apiKey = keyIn(response);
    if (!apiKey) {
      return {
        ok: false,
        errors: {
          email:
            'The service made the account but gave no API key with it: create a key in the service’s app, then use *Link a key*',
        },
      };
    }
    const checked = await this.deps.keys.check(apiKey);
    if (!checked.ok) return { ok: false, errors: { email: checked.message } };
    await this.deps.keys.link({
      ref: target.ref,
      teamId: target.team,
      userId: target.owner,
      apiKey,
      by: userId,
    });
    return { ok: true, run: () => this.deps.refreshHome(userId) };
  }

  /** The Remove button: only whoever may manage the slot (for a person's key: that person). */
  async remove(userId: string, teamId?: string): Promise<Outcome> {
    const target = await this.#target(userId, teamId);
    if (!target) return { ok: false, message: NO_KEY_SLOT };
    if (!(await this.#mayManage(userId, target.slot)))
      return {
        ok: false,
        message: 'Only a workspace admin or one of the bot’s approvers can remove the workspace’s key.',
      };
    await this.deps.keys.remove(target.ref, userId);
    await this.deps.refreshHome(userId);
    return { ok: true };
  }
}

/**
 * The key in a signup response. The contract's response has none (`user`, `idToken`, `refreshToken`,
 * `expiresIn`); a service that issues one with the account is read where it would most likely put it.
 */
export function keyIn(response: Record<string, unknown>): string | undefined {
  const user = response.user;
  const candidates = [
    response.apiKey,
    response.api_key,
    response.key,
    typeof user === 'object' && user !== null ? (user as Record<string, unknown>).apiKey : undefined,
  ];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return found?.trim();
}

function signupErrors(error: unknown): Record<string, string> {
  if (error instanceof ValidationError) {
    const out: Record<string, string> = {};
    for (const issue of error.issues) {
      const field = issue.field.includes('password')
        ? 'password'
        : issue.field.includes('display')
          ? 'display_name'
          : 'email';
      out[field] = `${issue.field}: ${issue.message}`.slice(0, 150);
    }
    return out;
  }
  if (error instanceof ServiceError && error.status === 400) {
    const field = /password/i.test(error.message) ? 'password' : 'email';
    return { [field]: `The service said: ${error.message}`.slice(0, 150) };
  }
  return { email: 'The service could not be reached to make the account; try again in a moment' };
}
