import type { webApi } from '@slack/bolt';

/** The Slack Web API client the services call (Bolt's `app.client`). */
export type SlackClient = webApi.WebClient;

/** The Slack error code of a failed Web API call (`not_in_channel`, `message_not_found`…), if it is one. */
export function slackErrorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}
