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

/**
 * A "link a key" form `user` was never given, forged on the shape of someone else's view (`from`) and
 * saved in the sandbox, so that submitting it tests the bot's own check rather than the sandbox's.
 */
export function forgedKeyLinkForm(
  workspace: RunningSandbox['workspace'],
  from: SandboxView,
  view: { id: string; user: string },
): SandboxView {
  return workspace.saveView({
    ...from,
    ...view,
    type: 'modal',
    callback_id: 'keys_link_form',
    private_metadata: JSON.stringify({ slot: 'workspace' }),
    blocks: [
      {
        type: 'input',
        block_id: 'api_key',
        label: { type: 'plain_text', text: 'API key' },
        element: { type: 'plain_text_input', action_id: 'value' },
      },
    ],
    closed: false,
  } as SandboxView);
}
