/**
 * The "Add to Slack" page as a person sees it: which app asks, for which workspace, what it will be able
 * to do, Allow and Cancel. Plain HTML, no script: the answer is a form POST back to the sandbox.
 */

import type { Workspace } from '../workspace.js';
import type { PendingAuthorization } from './app.js';

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

const STYLE = `body{font:15px/1.45 -apple-system,Segoe UI,Helvetica,Arial,sans-serif;background:#f8f8f8;color:#1d1c1d;margin:0}
main{max-width:560px;margin:48px auto;background:#fff;border:1px solid #ddd;border-radius:8px;padding:32px}
h1{font-size:22px;margin:0 0 8px}label{display:block;margin:16px 0 4px;font-weight:600}
select{width:100%;padding:8px;font-size:15px}ul{padding-left:20px}code{background:#f1f1f1;padding:1px 4px;border-radius:3px}
.actions{display:flex;gap:12px;justify-content:flex-end;margin-top:24px}
button{font-size:15px;padding:8px 20px;border-radius:4px;border:1px solid #bbb;background:#fff;cursor:pointer}
button.allow{background:#007a5a;border-color:#007a5a;color:#fff;font-weight:700}.muted{color:#616061;font-size:13px}
.problem{border-left:4px solid #e01e5a;padding-left:12px}`;

const frame = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

const scopeList = (scopes: string[]) =>
  `<ul>${scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`;

/** The page asking a person to allow the app into one of the workspaces. */
export function authorizePage(input: {
  appName: string;
  pending: PendingAuthorization;
  workspaces: Workspace[];
}): string {
  const { pending, appName } = input;
  const orgAsked = input.workspaces.some((w) => w.seed.enterprise?.id === pending.team);
  const preferred = input.workspaces.find((w) => w.seed.teamId === pending.team) ?? input.workspaces[0];
  const option = (value: string, label: string, selected: boolean) =>
    `<option value="${escapeHtml(value)}"${selected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const people = (w: Workspace) => [...w.users.values()].filter((u) => !u.is_bot);
  const workspaces = input.workspaces
    .map((w) => {
      const name = w.seed.teamName ?? w.seed.teamDomain;
      const options = people(w).map((u, i) =>
        option(
          `${w.seed.teamId}|${u.id}`,
          `${name} — as ${u.real_name}`,
          w === preferred && i === 0 && !orgAsked,
        ),
      );
      return `<optgroup label="${escapeHtml(`${name} (${w.seed.teamId})`)}">${options.join('')}</optgroup>`;
    })
    .join('');
  // An Enterprise Grid organization can take the app org-wide: an admin installs it for all its workspaces.
  const orgs = new Map<string, { name: string; members: Workspace[] }>();
  for (const w of input.workspaces) {
    const org = w.seed.enterprise;
    if (org) orgs.set(org.id, { name: org.name, members: [...(orgs.get(org.id)?.members ?? []), w] });
  }
  const organizations = [...orgs]
    .map(([id, org]) => {
      const admins = org.members.flatMap(people);
      const options = admins.map((u, i) =>
        option(
          `${id}|${u.id}`,
          `${org.name}, every workspace — as ${u.real_name}`,
          id === pending.team && i === 0,
        ),
      );
      return `<optgroup label="${escapeHtml(`${org.name} organization (${id})`)}">${options.join('')}</optgroup>`;
    })
    .join('');
  const options = workspaces + organizations;
  const target = new URL(pending.redirectUri);
  const body = `<h1>${escapeHtml(appName)} is requesting permission to access a Slack workspace</h1>
<form method="post" action="/oauth/v2/authorize" data-testid="oauth-authorize">
<input type="hidden" name="request" value="${escapeHtml(pending.id)}">
<label for="as">Install into</label>
<select id="as" name="as" data-testid="oauth-workspace">${options}</select>
${pending.botScopes.length > 0 ? `<label>What will ${escapeHtml(appName)} be able to view and do?</label>${scopeList(pending.botScopes)}` : ''}
${pending.userScopes.length > 0 ? `<label>What will ${escapeHtml(appName)} be able to do on your behalf?</label>${scopeList(pending.userScopes)}` : ''}
<p class="muted">After you answer, you go to <code>${escapeHtml(target.origin + target.pathname)}</code>.</p>
<div class="actions"><button type="submit" name="decision" value="cancel" data-testid="oauth-cancel">Cancel</button>
<button class="allow" type="submit" name="decision" value="allow" data-testid="oauth-allow">Allow</button></div>
</form>`;
  return frame(`${appName} · Add to Slack`, body);
}

/** Slack's error page for an install request it won't show (nothing is redirected). */
export function problemPage(problem: string): string {
  return frame(
    'Something went wrong',
    `<h1>Something went wrong when authorizing this app.</h1><p class="problem" data-testid="oauth-problem">${escapeHtml(problem)}</p><p class="muted">Try going back and authorizing again. If problems persist, contact the app's support.</p>`,
  );
}
