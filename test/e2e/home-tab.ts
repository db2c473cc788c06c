import type { RunningSandbox, SandboxView, SlackDriver } from '@agent-sessions/slack-sandbox';

type Obj = Record<string, unknown>;

/** A person's App Home tab as the bot last published it. */
export function homeOf(sandbox: RunningSandbox, user: string): SandboxView | undefined {
  const id = sandbox.workspace.homeViews.get(user);
  return id ? sandbox.workspace.views.get(id) : undefined;
}

export const homeText = (view: SandboxView | undefined) => JSON.stringify(view?.blocks ?? []);

/**
 * Presses a button on a person's Home tab, as Slack sends it: a `block_actions` payload whose container is
 * the view (no channel, no response_url), with a trigger id the sandbox issued to that person.
 */
export async function pressInHome(
  sandbox: RunningSandbox,
  driver: SlackDriver,
  user: string,
  actionId: string,
): Promise<{ status: number }> {
  const view = homeOf(sandbox, user);
  if (!view) throw new Error(`no Home tab published for ${user}`);
  const block = (view.blocks as Obj[]).find((b) =>
    ((b.elements as Obj[] | undefined) ?? []).some((e) => e.action_id === actionId),
  );
  const element = ((block?.elements as Obj[] | undefined) ?? []).find((e) => e.action_id === actionId);
  if (!block || !element) throw new Error(`no ${actionId} on ${user}'s Home tab`);
  const { seed } = sandbox.workspace;
  const person = sandbox.workspace.users.get(user);
  const payload = {
    type: 'block_actions',
    user: { id: user, username: person?.name ?? user, name: person?.name ?? user, team_id: seed.teamId },
    api_app_id: seed.appId,
    token: 'sandbox-verification-token',
    container: { type: 'view', view_id: view.id },
    trigger_id: sandbox.interactions.issueTrigger(user),
    team: { id: seed.teamId, domain: seed.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    view: { ...view, state: { values: {} } },
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: block.block_id,
        text: element.text,
        ...(element.value === undefined ? {} : { value: element.value }),
        action_ts: (Date.now() / 1000).toFixed(6),
      },
    ],
  };
  return driver.send(
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    'application/x-www-form-urlencoded',
  );
}
