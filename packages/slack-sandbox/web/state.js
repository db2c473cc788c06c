// What the page knows and how it talks to the sandbox: the person's place (who, where, which thread), the
// last workspace state read, and the one way to call a /sandbox/* route. Every other module reads `ui`.
export const $ = (id) => document.getElementById(id);
export const ui = {
  user: localStorage.getItem('sandbox.user') ?? 'U0ALICE',
  channel: localStorage.getItem('sandbox.channel') ?? 'C0AGENTS',
  home: false,
  // The DM with the bot (its Messages tab) is shown instead of a channel.
  dm: false,
  // Where the composer writes: a thread of the current conversation, or the conversation itself.
  replyTo: undefined,
  state: undefined,
  viewErrors: {},
  drafts: {},
};

export function toast(text) {
  const el = $('toast');
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

export async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!json.ok) toast(json.error ?? `${path} failed`);
  return json.result;
}

export const context = (container, errors) => {
  const s = ui.state;
  return {
    users: Object.fromEntries(s.users.map((u) => [u.id, u.profile?.display_name || u.name])),
    channels: Object.fromEntries(s.channels.map((c) => [c.id, c.name])),
    // Date tokens show in the reader's own zone, as Slack shows them.
    timeZone: readerZone(),
    container,
    ...(errors ? { errors } : {}),
  };
};

// The DM between the person acting and the bot: Slack's im channel, D + the user id's rest.
export const dmId = () => `D${ui.user.slice(1)}`;

// The person acting's time zone (their profile's tz), for every time the page shows.
export const readerZone = () => ui.state?.users.find((u) => u.id === ui.user)?.tz || undefined;
