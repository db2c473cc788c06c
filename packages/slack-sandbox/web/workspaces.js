// The workspace switcher (a sandbox with several workspaces, or an app distributed with OAuth): which
// workspace the page shows, whether the app is installed there, "Add to Slack" and Uninstall. The choice
// is a cookie the sandbox sets (POST /sandbox/workspace): every /sandbox/* route answers for that workspace.

import { escapeHtml } from '/web/render.js';
import { $, post, toast } from '/web/state.js';

/** Switches the page to another workspace: its first person, and the channel the bot is in. */
async function switchTo(team) {
  if (!(await post('/sandbox/workspace', { team }))) return;
  const state = await fetch('/sandbox/state').then((r) => r.json());
  const person = state.users.find((u) => !u.is_bot);
  const channel = state.channels.find((c) => c.is_member && !c.is_im) ?? state.channels[0];
  if (person) localStorage.setItem('sandbox.user', person.id);
  if (channel) localStorage.setItem('sandbox.channel', channel.id);
  location.reload();
}

let last = '';

/** Draws the switcher; redrawn only when something changed (an install, an uninstall), not under the mouse. */
export async function renderWorkspaces() {
  const panel = $('workspaces');
  const data = await fetch('/sandbox/workspaces')
    .then((r) => r.json())
    .catch(() => undefined);
  if (!panel || !data || (data.workspaces.length < 2 && !data.oauth)) return;
  const seen = JSON.stringify(data);
  if (seen === last) return;
  last = seen;
  panel.hidden = false;
  const shown = data.workspaces.find((w) => w.id === data.shown) ?? data.workspaces[0];
  const options = data.workspaces
    .map(
      (w) =>
        `<option value="${escapeHtml(w.id)}"${w.id === shown.id ? ' selected' : ''}>${escapeHtml(w.name)} (${escapeHtml(w.id)})${w.installed ? '' : ' · app not installed'}</option>`,
    )
    .join('');
  const install = data.installUrl
    ? `<a class="button primary" href="${escapeHtml(data.installUrl)}" data-testid="add-to-slack">Add to Slack</a>`
    : '<span class="muted">not installed</span>';
  const orgWide = shown.installedAs && shown.installedAs !== shown.id;
  const status = shown.installed
    ? `installed${orgWide ? ` org-wide (${escapeHtml(shown.enterprise?.name ?? shown.installedAs)})` : ''} <button type="button" class="button" id="uninstall-app" data-team="${escapeHtml(shown.installedAs ?? shown.id)}" data-testid="uninstall-app">Uninstall</button>`
    : install;
  panel.innerHTML = `<label class="you">Workspace <select id="team" data-testid="workspace-switcher">${options}</select></label>${
    data.oauth ? `<div class="app-status" data-testid="app-status">Agent Sessions: ${status}</div>` : ''
  }`;
}

document.addEventListener('change', (event) => {
  if (event.target.id === 'team') void switchTo(event.target.value);
});
document.addEventListener('click', async (event) => {
  if (event.target.id !== 'uninstall-app') return;
  // An org-wide installation is removed from the whole organization.
  const team = event.target.dataset.team;
  if (!team) return;
  const result = await post('/sandbox/oauth/uninstall', { team });
  if (result) toast('Agent Sessions was removed from this workspace');
  await renderWorkspaces();
});
