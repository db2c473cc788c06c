import { randomBytes } from 'node:crypto';
import { SlackApiError } from './api/types.js';
import { describeProblem, validateBlocks } from './blockkit/validate.js';
import type { Workspace } from './workspace.js';

interface Trigger {
  user: string;
  expiresAt: number;
  used: boolean;
}

/** An interactivity pointer: a trigger a workflow step's execution got, for the person who ran it. */
interface Pointer extends Trigger {
  executionId: string;
}

export interface ResponseTarget {
  channel: string;
  user: string;
  /** The message the interaction came from, for replace_original / delete_original. */
  messageTs?: string;
  isEphemeral?: boolean;
  threadTs?: string;
}

interface ResponseUrl extends ResponseTarget {
  uses: number;
  expiresAt: number;
}

const RESPONSE_URL_USES = 5;
const RESPONSE_URL_TTL_MS = 30 * 60_000;

/** trigger_ids and response_urls, with Slack's rules: a trigger once within 3 s, a response_url 5 times in 30 min. */
export class Interactions {
  readonly #triggers = new Map<string, Trigger>();
  readonly #pointers = new Map<string, Pointer>();
  readonly #responseUrls = new Map<string, ResponseUrl>();

  constructor(
    readonly workspace: Workspace,
    readonly baseUrl: () => string,
    readonly triggerTtlMs = 3_000,
  ) {}

  issueTrigger(user: string): string {
    const id = `${Date.now()}.${randomBytes(6).toString('hex')}`;
    this.#triggers.set(id, { user, expiresAt: Date.now() + this.triggerTtlMs, used: false });
    return id;
  }

  /** The user the trigger was issued to; throws Slack's error when it is unknown, used or stale. */
  consumeTrigger(id: string): string {
    const trigger = this.#triggers.get(id);
    if (!trigger) throw new SlackApiError('invalid_trigger_id');
    if (trigger.used || Date.now() > trigger.expiresAt) throw new SlackApiError('expired_trigger_id');
    trigger.used = true;
    return trigger.user;
  }

  /**
   * The interactivity pointer Workflow Builder puts in a step's interactivity input: like a trigger_id,
   * for the person who ran the workflow, to be exchanged once and soon (`views.open`).
   */
  issuePointer(user: string, executionId: string): string {
    const id = `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(16).toString('hex')}`;
    this.#pointers.set(id, { user, executionId, expiresAt: Date.now() + this.triggerTtlMs, used: false });
    return id;
  }

  /**
   * Whom the pointer was issued to, and for which execution. Slack answers a pointer with its trigger
   * errors (views.open lists no others): unknown, used before, or too old.
   */
  consumePointer(id: string): { user: string; executionId: string } {
    const pointer = this.#pointers.get(id);
    if (!pointer) throw new SlackApiError('invalid_trigger_id');
    if (pointer.used) throw new SlackApiError('exchanged_trigger_id');
    if (Date.now() > pointer.expiresAt) throw new SlackApiError('expired_trigger_id');
    pointer.used = true;
    return { user: pointer.user, executionId: pointer.executionId };
  }

  issueResponseUrl(target: ResponseTarget): string {
    const id = randomBytes(12).toString('hex');
    this.#responseUrls.set(id, { ...target, uses: 0, expiresAt: Date.now() + RESPONSE_URL_TTL_MS });
    return `${this.baseUrl()}/response/${id}`;
  }

  /** Whether this workspace issued the response URL with this id. */
  knowsResponseUrl(id: string): boolean {
    return this.#responseUrls.has(id);
  }

  /** A POST to a response_url, as `respond()` sends it. Returns the HTTP status and body Slack would. */
  respond(id: string, body: Record<string, unknown>): { status: number; body: Record<string, unknown> } {
    const target = this.#responseUrls.get(id);
    if (!target || Date.now() > target.expiresAt)
      return { status: 404, body: { ok: false, error: 'expired_url' } };
    if (target.uses >= RESPONSE_URL_USES)
      return { status: 404, body: { ok: false, error: 'used_too_many_times' } };
    target.uses++;
    return this.#show(target, body);
  }

  /**
   * A slash command's immediate reply (the body of the bot's 200): Slack shows it like a response_url
   * message (ephemeral unless `response_type: 'in_channel'`) without counting it against the URL's uses.
   * An empty body shows nothing.
   */
  showCommandReply(responseUrl: string, body: unknown): void {
    if (typeof body !== 'object' || body === null) return;
    const reply = body as Record<string, unknown>;
    const hasText = typeof reply.text === 'string' && reply.text !== '';
    if (!hasText && !Array.isArray(reply.blocks)) return;
    const target = this.#responseUrls.get(responseUrl.slice(responseUrl.lastIndexOf('/') + 1));
    if (target) this.#show(target, reply);
  }

  #show(
    target: ResponseUrl,
    body: Record<string, unknown>,
  ): { status: number; body: Record<string, unknown> } {
    const { workspace } = this;
    const text = typeof body.text === 'string' ? body.text : '';
    const blocks = Array.isArray(body.blocks) ? body.blocks : undefined;
    if (blocks) {
      const problems = validateBlocks(blocks, 'message');
      if (problems.length > 0) {
        return {
          status: 400,
          body: { ok: false, error: 'invalid_blocks', errors: problems.map(describeProblem) },
        };
      }
    }
    const content = { text, ...(blocks ? { blocks } : {}) };
    if (body.delete_original === true && target.messageTs) {
      if (target.isEphemeral) this.#dropEphemeral(target);
      else workspace.remove(target.channel, target.messageTs);
      return { status: 200, body: { ok: true } };
    }
    if (body.replace_original === true && target.messageTs) {
      if (target.isEphemeral) {
        const original = workspace.ephemerals.find(
          (e) => e.ts === target.messageTs && e.user === target.user,
        );
        if (original) Object.assign(original, content);
        return { status: 200, body: { ok: true } };
      }
      const message = workspace.findMessage(target.channel, target.messageTs);
      if (!message) return { status: 404, body: { ok: false, error: 'message_not_found' } };
      workspace.update(message, content);
      return { status: 200, body: { ok: true } };
    }
    const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : target.threadTs;
    if (body.response_type === 'in_channel') {
      const { seed } = workspace;
      workspace.post({
        channel: target.channel,
        ...content,
        bot_id: seed.botId,
        app_id: seed.appId,
        user: seed.botUserId,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
    } else {
      workspace.postEphemeral({
        channel: target.channel,
        user: target.user,
        ...content,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        via: 'response_url',
      });
    }
    return { status: 200, body: { ok: true } };
  }

  #dropEphemeral(target: ResponseUrl): void {
    const index = this.workspace.ephemerals.findIndex(
      (e) => e.ts === target.messageTs && e.user === target.user,
    );
    if (index >= 0) this.workspace.ephemerals.splice(index, 1);
  }
}
