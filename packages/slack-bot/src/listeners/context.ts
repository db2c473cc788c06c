import type { Logger } from '../logger.js';
import type { ChannelSteering } from '../services/code-channels/channel-steering.js';
import type { Uninstalls } from '../services/installs/uninstalls.js';
import type { KeyLinking } from '../services/keys/index.js';
import type { McpConnections } from '../services/mcp/index.js';
import type { AnsweringService } from '../services/people/answering.js';
import type { ChannelSettingsService } from '../services/people/channel-settings.js';
import type { ConversationService } from '../services/people/conversation.js';
import type { SessionDirectory } from '../services/people/directory.js';
import type { FeedbackService } from '../services/people/feedback.js';
import type { HomeRefresher } from '../services/people/home-refresh.js';
import type { HomeViews } from '../services/people/home-views.js';
import type { MessagesTab } from '../services/people/messages-tab.js';
import type { StartingService } from '../services/people/starting.js';
import type { SteeringService } from '../services/people/steering.js';
import type { StopService } from '../services/people/stopping.js';
import type { WorkflowSteps } from '../services/workflows/workflow-steps.js';

/** What every listener may use: the services, never the store or the service's client. */
export interface ListenerContext {
  answering: Pick<AnsweringService, 'answer' | 'openForm' | 'submitForm'>;
  steering: Pick<SteeringService, 'signal' | 'openForm' | 'resume' | 'submitRedirect' | 'submitBudget'>;
  starting: Pick<StartingService, 'start' | 'submitForm'>;
  directory: Pick<SessionDirectory, 'list' | 'status' | 'history' | 'home'>;
  conversation: Pick<ConversationService, 'handle'>;
  feedback: Pick<FeedbackService, 'record'>;
  /** Slack's agent surfaces: the Stop button, the Messages tab, a channel's defaults. */
  stopping: Pick<StopService, 'stop'>;
  messagesTab: Pick<MessagesTab, 'opened'>;
  channelSettings: Pick<ChannelSettingsService, 'open' | 'submitForm'>;
  /** Service keys in App Home. */
  keys?: Pick<KeyLinking, 'homeBlocks' | 'openForm' | 'submitLink' | 'submitSignup' | 'remove'>;
  /** Agent hosts (MCP) in App Home: tokens made, listed and revoked; a deactivated person's revoked. */
  mcp?: Pick<McpConnections, 'homeBlocks' | 'connect' | 'revoke' | 'revokePerson' | 'left'>;
  /** Home tabs people opened, kept true as sessions change. */
  homes?: Pick<HomeRefresher, 'opened'>;
  /** Every Home tab published: with Slack's hash, so an older draw never replaces a newer one. */
  homeViews: Pick<HomeViews, 'publish'>;
  logger: Logger;
  /** Sessions in channels of their own: the agent's channel commands and the context bar's actions. */
  codeChannels?: Pick<ChannelSteering, 'command' | 'action'>;
  /** OAuth mode: uninstalls and revoked tokens. */
  installs?: Pick<Uninstalls, 'uninstalled' | 'revoked'>;
  /**
   * Workflow Builder's steps "Run an agent session" and "Wait for an agent session", and the runner's
   * answer to a step's confirmation.
   */
  workflows?: Pick<WorkflowSteps, 'run' | 'wait' | 'confirm' | 'decline'>;
}
