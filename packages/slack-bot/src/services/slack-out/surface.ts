/**
 * Which of Slack's surfaces a session lives on. `agent`: Slack's own agent session (status pill, Stop
 * button, streamed work); `classic`: the card edited in place and its thread, which stay fully supported.
 * `AGENT_SLACK_SURFACE` picks it; under `auto` (the default) the bot starts on `agent` and falls back to
 * `classic` the first time Slack answers an agent method with an error that means the feature is missing.
 */
import type { Logger } from '../../logger.js';

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

/** What /healthz says of the surface. */
export interface SurfaceReport {
  setting: SurfaceSetting;
  current: SlackSurface;
  /** Why `auto` went classic, or what Slack refused under `agent`: the first such answer. */
  refused?: { method: string; error: string; at: string };
}

/**
 * The one surface choice of the bot. Under `auto`, the first refusal that means the feature is missing
 * turns every session classic from then on (no further agent calls: the card and thread carry them), and
 * is logged once. Under `agent` the bot keeps calling Slack's agent methods however Slack answers: each
 * refusal is logged once per method and error, naming the fix, and /healthz shows it. Sessions lose
 * nothing either way — their card and thread are posted on both surfaces — only Slack's own status pill,
 * Stop button and streamed work are missing. Under `classic` no agent method is ever called.
 */
export class SurfaceSwitch implements SurfaceChoice {
  #current: SlackSurface;
  #refused: SurfaceReport['refused'];
  readonly #said = new Set<string>();

  constructor(
    readonly setting: SurfaceSetting,
    private readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#current = setting === 'classic' ? 'classic' : 'agent';
  }

  current(): SlackSurface {
    return this.#current;
  }

  fallBack(method: string, error: string): void {
    this.#refused ??= { method, error, at: this.now().toISOString() };
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
    if (this.#current === 'classic') return;
    this.#current = 'classic';
    this.logger.warn(
      { method, error, surface: 'classic' },
      `Slack answered ${method} with ${error}: this workspace has no agent sessions for the app, so sessions use the card and thread (AGENT_SLACK_SURFACE=auto)`,
    );
  }

  /** Logged once at start: the setting and where sessions go. */
  announce(): void {
    this.logger.info({ surface: this.#current, setting: this.setting }, 'Slack surface chosen');
  }

  report(): SurfaceReport {
    return {
      setting: this.setting,
      current: this.#current,
      ...(this.#refused ? { refused: this.#refused } : {}),
    };
  }
}
