/**
 * Which of Slack's surfaces a session lives on. `agent`: Slack's own agent session (status pill, Stop
 * button, streamed work); `classic`: the card edited in place and its thread, which stay fully supported.
 * `AGENT_SLACK_SURFACE` picks it; under `auto` (the default) the bot starts on `agent` and falls back to
 * `classic` the first time Slack answers an agent method with an error that means the feature is missing,
 * then tries `agent` again after `AGENT_SURFACE_RETRY_MINUTES` (an app declared an agent and reinstalled
 * comes back without a restart). Only a definite answer flips it: a timeout, a 5xx or `ratelimited` never.
 */
import type { Logger } from '../../../logger.js';

export type SlackSurface = 'agent' | 'classic';
export type SurfaceSetting = 'auto' | 'agent' | 'classic'; // AGENT_SLACK_SURFACE, default 'auto'

export interface SurfaceChoice {
  /** The surface in use now: 'agent' until Slack's answers show the feature is missing (under 'auto'). */
  current(): SlackSurface;
  /** Slack answered an agent method with an error that means the feature is missing: fall back (logged once). */
  fallBack(method: string, error: string): void;
}

/**
 * Slack's answers that mean this app or workspace has no agent features, whatever the session: the
 * method is unknown or retired here (an older Slack, or the sandbox as one), the token lacks the scope
 * (`assistant:write` comes with declaring the app an agent), the token type or plan can't use it, or the
 * app is not declared an agent. Slack's reference pages list the generic ones for every method; the
 * agent-specific spellings are taken as Slack's and the sandbox's pages use them. Anything else (a
 * channel we left, a thread deleted, a rate limit) concerns one call and changes nothing here.
 */
export const FEATURE_MISSING_ERRORS: ReadonlySet<string> = new Set([
  'unknown_method',
  'method_deprecated',
  'missing_scope',
  'not_allowed_token_type',
  'feature_not_enabled',
  'feature_disabled',
  'team_not_eligible',
  'not_an_agent',
  'app_not_agent',
  'not_agent_app',
  'agent_not_enabled',
  'agent_view_not_enabled',
]);

export const isFeatureMissing = (error: string | undefined): boolean =>
  error !== undefined && FEATURE_MISSING_ERRORS.has(error);

/**
 * Slack's answers that mean "not now" (Slack's reference pages list them for every method): busy, down or
 * slow. They say nothing of the feature nor of the session, so the call is simply tried again later.
 */
export const TRANSIENT_ERRORS: ReadonlySet<string> = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'timeout',
]);

export const isTransient = (error: string | undefined): boolean =>
  error !== undefined && TRANSIENT_ERRORS.has(error);

/** What /healthz says of the surface. */
export interface SurfaceReport {
  setting: SurfaceSetting;
  current: SlackSurface;
  /** Why `auto` went classic, or what Slack refused under `agent`: the latest such answer. */
  refused?: { method: string; error: string; at: string };
  /** Under `auto`, classic: when `agent` is tried again (absent when retrying is off). */
  retryAt?: string;
  /** Under `auto`: how often the bot went classic, and when it last tried `agent` again. */
  fallbacks?: number;
  retriedAt?: string;
}

/** AGENT_SURFACE_RETRY_MINUTES's default: an hour (one refused call an hour costs nothing). */
export const DEFAULT_SURFACE_RETRY_MS = 60 * 60 * 1000;

/**
 * The one surface choice of the bot. Under `auto`, a refusal that means the feature is missing turns every
 * session classic (no further agent calls: the card and thread carry them), logged as a warning the first
 * time; after `retryMs` (0: never) the next agent call tries again, and a new refusal turns it classic for
 * another `retryMs` (said at info: the operator was warned already). Under `agent` the bot keeps calling Slack's agent methods however Slack answers: each
 * refusal is logged once per method and error, naming the fix, and /healthz shows it. Sessions lose
 * nothing either way — their card and thread are posted on both surfaces — only Slack's own status pill,
 * Stop button and streamed work are missing. Under `classic` no agent method is ever called.
 */
export class SurfaceSwitch implements SurfaceChoice {
  #current: SlackSurface;
  #refused: SurfaceReport['refused'];
  readonly #said = new Set<string>();
  #retryAt: Date | undefined;
  #retriedAt: Date | undefined;
  #fallbacks = 0;
  readonly #again: Array<() => void> = [];

  constructor(
    readonly setting: SurfaceSetting,
    private readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>,
    private readonly now: () => Date = () => new Date(),
    private readonly retryMs: number = DEFAULT_SURFACE_RETRY_MS,
  ) {
    this.#current = setting === 'classic' ? 'classic' : 'agent';
  }

  current(): SlackSurface {
    if (this.#retryAt && this.now() >= this.#retryAt) {
      this.#retryAt = undefined;
      this.#retriedAt = this.now();
      this.#current = 'agent';
      this.logger.info(
        { surface: 'agent', setting: this.setting },
        'trying Slack agent sessions again (AGENT_SURFACE_RETRY_MINUTES)',
      );
      // After this call returns: a listener asks current() too.
      for (const listener of this.#again) queueMicrotask(listener);
    }
    return this.#current;
  }

  /** Called each time `auto` tries agent sessions again (sessions followed meanwhile get their status). */
  onAgain(listener: () => void): void {
    this.#again.push(listener);
  }

  fallBack(method: string, error: string): void {
    if (this.setting === 'agent') this.#refused ??= { method, error, at: this.now().toISOString() };
    if (this.setting === 'agent') {
      const key = `${method}:${error}`;
      if (this.#said.has(key)) return;
      this.#said.add(key);
      this.logger.error(
        { method, error, surface: 'agent' },
        `AGENT_SLACK_SURFACE=agent, but Slack refused ${method} (${error}): sessions keep their card and thread, without Slack's status and Stop button. Declare the app an agent (agent view, assistant:write) and reinstall it, or set AGENT_SLACK_SURFACE=auto to fall back quietly`,
      );
      return;
    }
    if (this.setting === 'classic' || this.#current === 'classic') return;
    this.#current = 'classic';
    this.#refused = { method, error, at: this.now().toISOString() };
    this.#fallbacks += 1;
    if (this.retryMs > 0) this.#retryAt = new Date(this.now().getTime() + this.retryMs);
    const again = this.#retryAt ? `; agent sessions are tried again at ${this.#retryAt.toISOString()}` : '';
    const line = `Slack answered ${method} with ${error}: this workspace has no agent sessions for the app, so sessions use the card and thread (AGENT_SLACK_SURFACE=auto)${again}`;
    if (this.#fallbacks === 1) this.logger.warn({ method, error, surface: 'classic' }, line);
    else this.logger.info({ method, error, surface: 'classic' }, line);
  }

  /** Logged once at start: the setting and where sessions go. */
  announce(): void {
    this.logger.info({ surface: this.#current, setting: this.setting }, 'Slack surface chosen');
  }

  report(): SurfaceReport {
    const current = this.current();
    return {
      setting: this.setting,
      current,
      ...(this.#refused ? { refused: this.#refused } : {}),
      ...(this.#retryAt ? { retryAt: this.#retryAt.toISOString() } : {}),
      ...(this.#fallbacks > 0 ? { fallbacks: this.#fallbacks } : {}),
      ...(this.#retriedAt ? { retriedAt: this.#retriedAt.toISOString() } : {}),
    };
  }
}
