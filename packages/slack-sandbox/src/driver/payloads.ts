/**
 * The bodies Slack sends a bot for what a person does (a slash command, a click, a modal submitted or
 * closed, the Home tab opened), built from plain values: the driver looks up the workspace and issues
 * the trigger and response_url, these shape what goes out.
 */

import type { SandboxChannel, WorkspaceSeed } from '../workspace.js';
import type { Draft, Obj } from './element-state.js';

export const VERIFICATION_TOKEN = 'sandbox-verification-token';

/** The `team` of an interaction payload (with its organization's id on Enterprise Grid), and `enterprise`. */
export const teamOf = (seed: WorkspaceSeed) => ({
  id: seed.teamId,
  domain: seed.teamDomain,
  ...(seed.enterprise ? { enterprise_id: seed.enterprise.id, enterprise_name: seed.enterprise.name } : {}),
});
export const enterpriseOf = (seed: WorkspaceSeed) => (seed.enterprise ? { ...seed.enterprise } : null);

export interface PersonRef {
  id: string;
  username: string;
  name: string;
  team_id: string;
}

/** A slash command, form-encoded as Slack posts it. */
export function slashCommandForm(input: {
  seed: WorkspaceSeed;
  channel: SandboxChannel;
  user: PersonRef;
  command: string;
  text: string;
  triggerId: string;
  responseUrl: string;
}): URLSearchParams {
  const { seed, channel, user } = input;
  return new URLSearchParams({
    token: VERIFICATION_TOKEN,
    team_id: seed.teamId,
    team_domain: seed.teamDomain,
    ...(seed.enterprise ? { enterprise_id: seed.enterprise.id, enterprise_name: seed.enterprise.name } : {}),
    channel_id: channel.id,
    channel_name: channel.name,
    user_id: user.id,
    user_name: user.username,
    command: input.command,
    text: input.text,
    api_app_id: seed.appId,
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: input.triggerId,
  });
}

/** A `block_actions` payload: one action on a message (or an ephemeral), with what was chosen on it. */
export function blockActionsPayload(input: {
  seed: WorkspaceSeed;
  user: PersonRef;
  channel: { id: string; name: string };
  message: Obj;
  messageTs: string;
  threadTs: string | undefined;
  ephemeral: boolean;
  triggerId: string;
  responseUrl: string;
  values: Draft;
  action: Obj;
}): Obj {
  const { seed, channel, threadTs } = input;
  return {
    type: 'block_actions',
    user: input.user,
    api_app_id: seed.appId,
    token: VERIFICATION_TOKEN,
    container: {
      type: 'message',
      message_ts: input.messageTs,
      channel_id: channel.id,
      is_ephemeral: input.ephemeral,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    },
    trigger_id: input.triggerId,
    team: teamOf(seed),
    enterprise: enterpriseOf(seed),
    is_enterprise_install: false,
    channel,
    message: input.message,
    state: { values: input.values },
    response_url: input.responseUrl,
    actions: [input.action],
  };
}

/** A `view_submission` payload: the view with what the person typed or chose in `state.values`. */
export function viewSubmissionPayload(input: {
  seed: WorkspaceSeed;
  user: PersonRef;
  triggerId: string;
  view: Obj;
}): Obj {
  const { seed } = input;
  return {
    type: 'view_submission',
    team: teamOf(seed),
    user: input.user,
    api_app_id: seed.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: input.triggerId,
    view: input.view,
    response_urls: [],
    is_enterprise_install: false,
    enterprise: enterpriseOf(seed),
  };
}

/** A `view_closed` payload: the person closed a modal (sent where the view asked to be told). */
export function viewClosedPayload(input: { seed: WorkspaceSeed; user: PersonRef; view: Obj }): Obj {
  const { seed } = input;
  return {
    type: 'view_closed',
    team: teamOf(seed),
    user: input.user,
    api_app_id: seed.appId,
    view: input.view,
    is_cleared: false,
    is_enterprise_install: false,
  };
}

/**
 * The Events API `app_home_opened` callback: the person opened the app's Home tab. Once a Home was
 * published to them, it carries that view as it is now, with its `hash` (what views.publish then takes
 * to refuse a Home published from an older draw).
 */
export function appHomeOpenedEvent(input: {
  seed: WorkspaceSeed;
  user: string;
  eventId?: string;
  /** The app's installation there is org-wide (Enterprise Grid): the authorization says so. */
  orgWide?: boolean;
  /** The person's Home as last published, as a payload carries it. */
  view?: Obj;
}): Obj {
  const { seed } = input;
  return {
    authorizations: [
      {
        enterprise_id: seed.enterprise?.id ?? null,
        team_id: seed.teamId,
        user_id: seed.botUserId,
        is_bot: true,
        is_enterprise_install: input.orgWide === true,
      },
    ],
    token: VERIFICATION_TOKEN,
    team_id: seed.teamId,
    ...(seed.enterprise ? { enterprise_id: seed.enterprise.id } : {}),
    api_app_id: seed.appId,
    type: 'event_callback',
    event_id: input.eventId ?? `Ev${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_home_opened',
      user: input.user,
      channel: `D${input.user.slice(1)}`,
      tab: 'home',
      ...(input.view ? { view: input.view } : {}),
      event_ts: `${Date.now() / 1000}`,
    },
  };
}
