/**
 * Slack's agent surface: which surface a workspace gets (AGENT_SLACK_SURFACE, per workspace), each session
 * as Slack's agent session (its status and title), and the agent's work streamed into Slack, each round
 * one streaming message, recovered after a crash. Falls back to the classic thread; calls go through the
 * outbound queue.
 */
export { AgentSessions } from './agent-sessions.js';
export { notMemberNotice } from './agent-status.js';
export { StreamPoster } from './stream-poster.js';
export {
  DEFAULT_SURFACE_RETRY_MS,
  isFeatureMissing,
  type SurfaceChoice,
  type SurfaceSetting,
} from './surface.js';
export { WorkspaceSurfaces } from './workspace-surfaces.js';
