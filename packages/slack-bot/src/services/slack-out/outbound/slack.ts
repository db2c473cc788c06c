import type { webApi } from '@slack/bolt';

/** The Slack Web API client the services call (Bolt's `app.client`). */
export type SlackClient = webApi.WebClient;

/** The Slack error code of a failed Web API call (`not_in_channel`, `message_not_found`…), if it is one. */
export function slackErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('data' in error)) return undefined;
  const { data } = error;
  if (typeof data !== 'object' || data === null || !('error' in data)) return undefined;
  return typeof data.error === 'string' ? data.error : undefined;
}

/** The part of the Web API's `chat` a service calls: what a test's fake has to provide, and no more. */
export type SlackChat<K extends keyof SlackClient['chat']> = { chat: Pick<SlackClient['chat'], K> };
