import type { RunningSandbox, SandboxView, SlackDriver } from '@agent-sessions/slack-sandbox';

/** A person's App Home tab as the bot last published it (in `team`, default the sandbox's own workspace). */
export function homeOf(sandbox: RunningSandbox, user: string, team?: string): SandboxView | undefined {
  const ws = team ? sandbox.workspaceFor(team) : sandbox.workspace;
  const id = ws.homeViews.get(user);
  return id ? ws.views.get(id) : undefined;
}

export const homeText = (view: SandboxView | undefined) => JSON.stringify(view?.blocks ?? []);

/**
 * Presses a button on a person's Home tab, as Slack sends it (the sandbox driver builds the payload: a
 * `block_actions` whose container is the view, no channel, no response_url, a trigger issued to them).
 */
export async function pressInHome(
  sandbox: RunningSandbox,
  driver: SlackDriver,
  user: string,
  actionId: string,
  team?: string,
): Promise<{ status: number }> {
  const view = homeOf(sandbox, user, team);
  if (!view) throw new Error(`no Home tab published for ${user}`);
  return driver.actInView({ user, viewId: view.id, actionId });
}
