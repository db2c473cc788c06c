/** What the redirect's page says: installed, cancelled (the person said no), or failed (and why, broadly). */
export type InstallOutcome =
  | { kind: 'installed'; workspace: string; name: string | undefined; orgWide: boolean }
  | { kind: 'cancelled' }
  | { kind: 'refused'; workspace: string; name: string | undefined }
  | { kind: 'failed'; reason: string };

/** Text for HTML: the five characters that could open markup or an attribute, escaped. */
export function escapeHtml(text: string): string {
  const named: Record<string, string> = {
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '"': '&quot;',
    "'": '&#39;',
  };
  return text.replace(/[&<>"']/g, (c) => named[c] ?? c);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}
a.button{display:inline-block;padding:.6rem 1.2rem;background:#4a154b;color:#fff;border-radius:6px;text-decoration:none}</style>
</head><body>${body}</body></html>`;
}

/** GET /slack/install: what the app does, and the "Add to Slack" link (Slack's authorize URL with a state). */
export function installPage(authorizeUrl: string): string {
  return page(
    'Add Agent Sessions to Slack',
    `<h1>Add Agent Sessions to Slack</h1>
<p>Start agents from Slack, follow their work in a thread, and answer their questions with buttons and forms.</p>
<p><a class="button" id="add-to-slack" href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>`,
  );
}

/** The redirect's page: what happened, in words, and nothing secret (no tokens, no codes, no state). */
export function resultPage(outcome: InstallOutcome): string {
  switch (outcome.kind) {
    case 'installed': {
      const where = outcome.name ? escapeHtml(outcome.name) : 'your workspace';
      return page(
        'Installed',
        `<h1 id="outcome" data-outcome="installed">Installed</h1>
<p>Agent Sessions is installed ${outcome.orgWide ? 'for the whole organisation' : 'in'} <strong>${where}</strong>.</p>
<p>In Slack, type <code>/agent start &lt;goal&gt;</code> in a channel, or open the app's Home tab.</p>`,
      );
    }
    case 'cancelled':
      return page(
        'Installation cancelled',
        `<h1 id="outcome" data-outcome="cancelled">Installation cancelled</h1>
<p>Nothing was installed. You can <a href="/slack/install">start again</a> at any time.</p>`,
      );
    case 'refused': {
      const where = outcome.name ? escapeHtml(outcome.name) : 'this workspace';
      return page(
        'Not open to this workspace',
        `<h1 id="outcome" data-outcome="refused">Not open to this workspace</h1>
<p>Agent Sessions isn't open to <strong>${where}</strong> (${escapeHtml(outcome.workspace)}): this app serves only the workspaces its operator admits. Nothing was installed.</p>
<p>If your workspace should have it, ask the app's operator to add ${escapeHtml(outcome.workspace)} to the workspaces they admit.</p>`,
      );
    }
    case 'failed':
      return page(
        'Installation failed',
        `<h1 id="outcome" data-outcome="failed">Installation failed</h1>
<p>${escapeHtml(outcome.reason)}</p><p><a href="/slack/install">Start again</a></p>`,
      );
  }
}
