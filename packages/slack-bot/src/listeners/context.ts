import type { AgentSessionsClient } from '@agent-sessions/core';
import type { BotConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { SessionPublisher } from '../services/session-publisher.js';
import type { SessionService } from '../services/session-service.js';
import type { Store } from '../store/store.js';

/** What every listener may use: the services, never Slack's or the service's raw plumbing. */
export interface ListenerContext {
  sessions: SessionService;
  publisher: SessionPublisher;
  store: Store;
  client: AgentSessionsClient;
  config: Pick<BotConfig, 'allowedChannels'>;
  logger: Logger;
}
