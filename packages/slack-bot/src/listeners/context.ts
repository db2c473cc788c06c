import type { Logger } from '../logger.js';
import type { Uninstalls } from '../services/installs/uninstalls.js';
import type { AnsweringService } from '../services/people/answering.js';
import type { ConversationService } from '../services/people/conversation.js';
import type { SessionDirectory } from '../services/people/directory.js';
import type { FeedbackService } from '../services/people/feedback.js';
import type { StartingService } from '../services/people/starting.js';
import type { SteeringService } from '../services/people/steering.js';

/** What every listener may use: the services, never the store or the service's client. */
export interface ListenerContext {
  answering: Pick<AnsweringService, 'answer' | 'openForm' | 'submitForm'>;
  steering: Pick<SteeringService, 'signal' | 'openForm' | 'resume' | 'submitRedirect' | 'submitBudget'>;
  starting: Pick<StartingService, 'start' | 'submitForm'>;
  directory: Pick<SessionDirectory, 'list' | 'status' | 'history' | 'home'>;
  conversation: Pick<ConversationService, 'handle'>;
  feedback: Pick<FeedbackService, 'record'>;
  logger: Logger;
  /** OAuth mode: uninstalls and revoked tokens (issue #25). */
  installs?: Pick<Uninstalls, 'uninstalled' | 'revoked'>;
}
