import type { ModalView } from '@slack/types';
import { channelSettingsModal } from '../../blocks/modals.js';
import { escapeMrkdwn, formatUsd, truncate } from '../../blocks/text.js';
import type { Logger } from '../../logger.js';
import type { ChannelDefaults, ChannelSettingsRepository } from '../../store/channel-settings.js';
import { currentWorkspace } from '../../workspace.js';
import type { FormResult, Outcome } from '../outcome.js';
import type { Notifier } from '../slack-out/thread/index.js';
import type { FormValues } from './answering.js';
import { type Approvers, onlyThey } from './policy.js';
import { parseObject, type StartInput } from './starting.js';

/** The start input with a channel's defaults filled in, and what the card says of them (none: undefined). */
export function applyChannelDefaults(
  input: StartInput,
  defaults: ChannelDefaults | undefined,
): { input: StartInput; applied?: string } {
  if (!defaults) return { input };
  const parts: string[] = [];
  const out: StartInput = { ...input };
  if (input.budget === undefined && defaults.budget !== null) {
    out.budget = defaults.budget;
    parts.push(`budget ${formatUsd(defaults.budget)}`);
  }
  if (input.maxIterations === undefined && defaults.maxIterations !== null) {
    out.maxIterations = defaults.maxIterations;
    parts.push(`${defaults.maxIterations} max iterations`);
  }
  const context = defaults.context;
  if (context && Object.keys(context).length > 0) {
    // The session's own keys (a thread read as `slack`, a form's context) win over the channel's.
    const own = input.context ?? {};
    const taken = Object.keys(context).filter((key) => !(key in own));
    if (taken.length > 0) {
      out.context = { ...Object.fromEntries(taken.map((key) => [key, context[key]])), ...own };
      parts.push(`context (${truncate(taken.join(', '), 80)})`);
    }
  }
  if (defaults.codeChannel && input.codeChannel !== false) {
    out.codeChannel = true;
    out.keepCodeChannel = input.keepCodeChannel ?? defaults.codeChannel === 'keep';
    if (!input.codeChannel) parts.push('each session in its own channel');
  }
  if (parts.length === 0) return { input: out };
  return { input: out, applied: `Channel defaults: ${parts.join(', ')}` };
}

/** The form's three fields, each checked; every problem under its field, nothing typed dropped. */
export function checkChannelSettings(
  values: FormValues,
  maxBudget?: number,
): { ok: true; defaults: ChannelDefaults } | { ok: false; errors: Record<string, string> } {
  const text = (block: string) => {
    const value = values[block];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const errors: Record<string, string> = {};
  const budgetText = text('budget');
  const budget = budgetText === undefined ? null : Number(budgetText.replace(/^\$/, ''));
  if (budget !== null && !(Number.isFinite(budget) && budget > 0))
    errors.budget = 'The default budget must be a positive number of dollars, like 5 or 2.50';
  else if (budget !== null && maxBudget !== undefined && budget > maxBudget)
    errors.budget = `The default budget must be at most ${formatUsd(maxBudget)} (AGENT_MAX_BUDGET): no session starts with more`;
  const iterationsText = text('max_iterations');
  const maxIterations = iterationsText === undefined ? null : Number(iterationsText);
  if (maxIterations !== null && !(Number.isInteger(maxIterations) && maxIterations > 0))
    errors.max_iterations = 'The default max iterations must be a whole number above 0';
  const contextText = text('context');
  let context: Record<string, unknown> | null = null;
  if (contextText !== undefined) {
    const parsed = parseObject(contextText);
    if (parsed.ok) context = parsed.value;
    else errors.context = parsed.error;
  }
  const where = values.code_channel;
  const codeChannel = where === 'archive' || where === 'keep' ? where : null;
  if (where !== undefined && where !== 'thread' && codeChannel === null)
    errors.code_channel = 'Choose where each session works: its thread, or a channel of its own';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, defaults: { budget, maxIterations, context, codeChannel } };
}

/**
 * `/agent settings`: a channel's defaults for new sessions — budget, max iterations, JSON context —
 * as Cursor's channel settings. Only approvers (AGENT_APPROVERS) may open or save them; anyone else is
 * refused privately. New sessions there get them unless their own flags say otherwise, and their card
 * says which were applied. They are the workspace's the request comes from (its installation's key): a
 * Slack Connect channel has one id in both organisations, and one's defaults (a JSON context the agent
 * reads) must never reach the other's sessions. Work that names no workspace reads and saves none.
 */
export class ChannelSettingsService {
  constructor(
    private readonly deps: {
      settings: ChannelSettingsRepository;
      approvers: Pick<Approvers, 'includes' | 'mentions'>;
      notifier: Pick<Notifier, 'tell'>;
      logger: Pick<Logger, 'warn'>;
      maxBudget?: number;
    },
  ) {}

  /** The form with the channel's current defaults, for an approver; why not, for anyone else. */
  async open(channelId: string, userId: string): Promise<Outcome<{ view: ModalView }>> {
    if (!(await this.deps.approvers.includes(userId))) return { ok: false, message: this.#refusal() };
    const workspace = currentWorkspace()?.key;
    const current = workspace === undefined ? undefined : await this.deps.settings.get(workspace, channelId);
    return {
      ok: true,
      view: channelSettingsModal(channelId, {
        ...(current?.budget != null ? { budget: String(current.budget) } : {}),
        ...(current?.maxIterations != null ? { maxIterations: String(current.maxIterations) } : {}),
        ...(current?.context ? { context: JSON.stringify(current.context, null, 2) } : {}),
        ...(current?.codeChannel ? { codeChannel: current.codeChannel } : {}),
      }),
    };
  }

  submitForm(channelId: string | undefined, userId: string, values: FormValues): FormResult {
    if (!channelId)
      return { ok: false, errors: { budget: 'This form lost its channel; run /agent settings again' } };
    const workspace = currentWorkspace()?.key;
    if (!workspace)
      return { ok: false, errors: { budget: 'This form came from no workspace Slack named; try again' } };
    const checked = checkChannelSettings(values, this.deps.maxBudget);
    if (!checked.ok) return checked;
    const place = { workspace, channelId };
    return { ok: true, run: () => this.#save(place, userId, checked.defaults, values) };
  }

  /** The channel's defaults for a new session, if any were set (a store that fails means none). */
  async defaults(channelId: string): Promise<ChannelDefaults | undefined> {
    const workspace = currentWorkspace()?.key;
    if (workspace === undefined) return undefined;
    return this.deps.settings.get(workspace, channelId).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, channelId }, 'could not read the channel defaults');
      return undefined;
    });
  }

  async #save(
    { workspace, channelId }: { workspace: string; channelId: string },
    userId: string,
    defaults: ChannelDefaults,
    values: FormValues,
  ): Promise<void> {
    const { notifier } = this.deps;
    // Checked again on save: the form may have been opened by someone no longer an approver.
    if (!(await this.deps.approvers.includes(userId))) {
      await notifier.tell(channelId, userId, `🚫 ${this.#refusal()}${typedBack(values)}`);
      return;
    }
    try {
      await this.deps.settings.save(workspace, channelId, defaults, userId);
    } catch (error) {
      this.deps.logger.warn({ err: error, channelId }, 'could not save the channel defaults');
      await notifier.tell(
        channelId,
        userId,
        `⚠️ The defaults could not be saved; try again.${typedBack(values)}`,
      );
      return;
    }
    await notifier.tell(
      channelId,
      userId,
      `✅ New sessions in <#${channelId}> start with: ${describe(defaults)}.`,
    );
  }

  #refusal(): string {
    const who = this.deps.approvers.mentions();
    return who.length > 0
      ? onlyThey(who, 'change this channel’s defaults')
      : 'Only the approvers can change this channel’s defaults, and none is configured (AGENT_APPROVERS).';
  }
}

function describe(d: ChannelDefaults): string {
  const parts = [
    d.budget === null ? 'no default budget' : `a budget of ${formatUsd(d.budget)}`,
    d.maxIterations === null ? 'no default max iterations' : `${d.maxIterations} max iterations`,
    d.context === null
      ? 'no default context'
      : `context keys ${escapeMrkdwn(Object.keys(d.context).join(', ') || '(none)')}`,
    d.codeChannel
      ? `each session in its own channel (${d.codeChannel === 'keep' ? 'kept open' : 'archived'} at its end)`
      : 'each session in its thread',
  ];
  return parts.join(', ');
}

/** What was typed, so a failure after the form closed loses none of it. */
function typedBack(values: FormValues): string {
  const lines = (['budget', 'max_iterations', 'context'] as const)
    .map((field) => [field, values[field]] as const)
    .filter(([, v]) => typeof v === 'string' && v !== '')
    .map(([field, v]) => `${field}: ${escapeMrkdwn(truncate(String(v), 2500))}`);
  return lines.length > 0 ? `\nWhat you typed:\n> ${lines.join('\n> ')}` : '';
}
