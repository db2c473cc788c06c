/**
 * Which of Slack's surfaces a session lives on. `agent`: Slack's own agent session (status pill, Stop
 * button, streamed work); `classic`: the card edited in place and its thread, which stay fully supported.
 * `AGENT_SLACK_SURFACE` picks it; under `auto` (the default) the bot starts on `agent` and falls back to
 * `classic` the first time Slack answers an agent method with an error that means the feature is missing.
 */
export type SlackSurface = 'agent' | 'classic';
export type SurfaceSetting = 'auto' | 'agent' | 'classic'; // AGENT_SLACK_SURFACE, default 'auto'

export interface SurfaceChoice {
  /** The surface in use now: 'agent' until Slack's answers show the feature is missing (under 'auto'). */
  current(): SlackSurface;
  /** Slack answered an agent method with an error that means the feature is missing: fall back (logged once). */
  fallBack(method: string, error: string): void;
}
