/** How fast the bot asks: the service (a request budget per key) and Slack (the paced outbound queue). */
import { z } from 'zod';

export const limitsSchema = z.object({
  FOLLOW_REQUESTS_PER_SECOND: z.coerce
    .number()
    .positive('FOLLOW_REQUESTS_PER_SECOND must be above 0')
    .default(10),
  AGENT_SLACK_PACING: z.enum(['on', 'off'], { error: 'AGENT_SLACK_PACING must be on or off' }).default('on'),
});

export interface LimitsConfig {
  requestsPerSecond: number;
  /** off: one post per message and 429s left to the Web API client (the benchmark's naive strategy). */
  slackPacing: 'on' | 'off';
}

export function limitsSettings(env: z.output<typeof limitsSchema>): LimitsConfig {
  return { requestsPerSecond: env.FOLLOW_REQUESTS_PER_SECOND, slackPacing: env.AGENT_SLACK_PACING };
}
