import { readFile } from 'node:fs/promises';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SlackDriver, ViewValues } from '../driver.js';
import type { Workspace } from '../workspace.js';
import { appCommands, isBuiltInCommand, notAValidCommand, playBuiltInCommand } from './built-in-commands.js';
import { addEmojiFontRoutes } from './emoji-font.js';
import { type Body, connectedDriver, jsonRoute } from './json-route.js';

export interface WebContext {
  workspace: Workspace;
  /** The driver for the bot the page plays against, once one is connected. */
  driver(): SlackDriver | undefined;
  /** The emulator's base URL, for its sessions panel (optional). */
  emulatorUrl(): string | undefined;
}

const WEB_DIR = new URL('../../web/', import.meta.url);
const RENDER_JS = new URL('./render.js', import.meta.url);
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
/**
 * A file of the page's folder the page may ask for by name: one flat name (no `/`, no `..`) ending in a
 * type the page uses. Anything else is not served, whatever the folder holds.
 */
const WEB_FILE = /^[a-z0-9][a-z0-9-]*\.(js|css)$/;

const asString = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v === '') throw new Error(`${name} is required`);
  return v;
};

/** `@agents` and `@alice` as Slack stores them once picked from the composer's list: `<@U…>`. */
export function mentionsToSlack(text: string, workspace: Workspace): string {
  const byName = new Map([...workspace.users.values()].map((u) => [u.name.toLowerCase(), u.id]));
  return text.replace(/(^|[\s(])@([a-z0-9._-]+)/gi, (whole, before: string, name: string) => {
    const id = byName.get(name.toLowerCase());
    return id ? `${before}<@${id}>` : whole;
  });
}

/**
 * The sandbox as a web page: the page is a client of these routes only. Everything a person does goes to
 * the bot through the driver — signed and shaped exactly as Slack would send it.
 */
export function addWebRoutes(app: Hono, ctx: WebContext): void {
  addPageFiles(app);
  addLiveState(app, ctx);
  addWriting(app, ctx);
  addPresses(app, ctx);
}

/** A file of the page, as its type, never cached. */
const file = (name: string, url: URL) => async () =>
  new Response(await readFile(url), {
    headers: {
      'content-type': TYPES[name.split('.').pop() ?? ''] ?? 'text/plain',
      'cache-control': 'no-store',
    },
  });

/** The page itself: its HTML, the block renderer, its modules and style, and its emoji font. */
function addPageFiles(app: Hono): void {
  app.get('/', file('index.html', new URL('index.html', WEB_DIR)));
  // The block renderer is the sandbox's own (built from src/web/render.ts), shared with its tests.
  app.get('/web/render.js', file('render.js', RENDER_JS));
  // …with the blocks made for agents beside it (render.js imports it).
  app.get('/web/render-agent.js', file('render-agent.js', new URL('./render-agent.js', import.meta.url)));
  // The page's modules and style, as they are in web/ (ES modules the browser loads: no bundler).
  app.get('/web/:name', async (c) => {
    const name = c.req.param('name');
    if (!WEB_FILE.test(name)) return c.text('not found', 404);
    try {
      return await file(name, new URL(name, WEB_DIR))();
    } catch {
      return c.text('not found', 404);
    }
  });
  addEmojiFontRoutes(app);
}

/** What the page reads: live updates, whether a bot and an emulator are there, the emulator's sessions. */
function addLiveState(app: Hono, ctx: WebContext): void {
  // Live updates: one event per change (coalesced), the page re-reads /sandbox/state.
  app.get('/sandbox/events', (c) =>
    streamSSE(c, async (stream) => {
      let pending: NodeJS.Timeout | undefined;
      let seq = 0;
      const onChange = () => {
        pending ??= setTimeout(() => {
          pending = undefined;
          void stream.writeSSE({ event: 'change', data: String(++seq), id: String(seq) });
        }, 30);
      };
      ctx.workspace.on('change', onChange);
      stream.onAbort(() => {
        ctx.workspace.off('change', onChange);
        if (pending) clearTimeout(pending);
      });
      await stream.writeSSE({ event: 'change', data: '0' });
      while (!stream.aborted)
        await stream.sleep(15_000).then(() => stream.writeSSE({ event: 'ping', data: '' }));
    }),
  );

  app.get('/sandbox/config', (c) =>
    c.json({ botConnected: ctx.driver() !== undefined, emulator: ctx.emulatorUrl() !== undefined }),
  );

  app.get('/sandbox/emulator/sessions', async (c) => {
    const url = ctx.emulatorUrl();
    if (!url) return c.json({ sessions: [] });
    try {
      const response = await fetch(`${url}/_emulator/sessions`);
      return c.json((await response.json()) as Body);
    } catch {
      return c.json({ sessions: [], error: 'the emulator is not reachable' }, 502);
    }
  });
}

/** A route that answers with what `run` does through the connected bot's driver. */
function withDriver(ctx: WebContext, run: (driver: SlackDriver, body: Body) => Promise<unknown> | unknown) {
  const driver = (): SlackDriver => connectedDriver(() => ctx.driver());
  return jsonRoute((body) => run(driver(), body));
}

/** A person types: a slash command (Slack's own played here) or a message. */
function addWriting(app: Hono, ctx: WebContext): void {
  const route = jsonRoute;
  const driver = (): SlackDriver => connectedDriver(() => ctx.driver());
  app.post(
    '/sandbox/command',
    route((b) => {
      const user = asString(b.user, 'user');
      const channel = asString(b.channel, 'channel');
      const text = String(b.text ?? '');
      // Slack's own /invite, /join and /leave never reach the app: the sandbox plays them.
      if (isBuiltInCommand(b.command))
        return playBuiltInCommand(ctx.workspace, {
          command: b.command,
          user,
          channel,
          text: mentionsToSlack(text, ctx.workspace),
        });
      const command = typeof b.command === 'string' ? b.command : '/agent';
      // A command nobody has: Slack tells the person so (only them, from Slackbot) and sends nothing.
      if (!appCommands(ctx.workspace).includes(command)) {
        ctx.workspace.postEphemeral({ channel, user, text: notAValidCommand(command), via: 'slack' });
        return { invalidCommand: command };
      }
      return driver().command({ user, channel, text, command });
    }),
  );
  // A person writes: in a channel, in a thread (threadTs), or to the bot in its Messages tab (dm: true).
  // `@name` becomes Slack's `<@ID>`, as Slack's composer does when a person picks a name.
  app.post(
    '/sandbox/say',
    withDriver(ctx, (d, b) => {
      const user = asString(b.user, 'user');
      const text = mentionsToSlack(asString(b.text, 'text'), ctx.workspace);
      const threadTs = typeof b.threadTs === 'string' && b.threadTs !== '' ? b.threadTs : undefined;
      if (b.dm === true) return d.dm({ user, text, ...(threadTs ? { threadTs } : {}) });
      return d.say({
        user,
        channel: asString(b.channel, 'channel'),
        text,
        ...(threadTs ? { threadTs } : {}),
      });
    }),
  );
}

/** A person presses, chooses, submits or closes: in a message, a modal or the Home tab. */
function addPresses(app: Hono, ctx: WebContext): void {
  app.post(
    '/sandbox/act',
    withDriver(ctx, (d, b) =>
      d.act({
        user: asString(b.user, 'user'),
        channel: asString(b.channel, 'channel'),
        ts: asString(b.ts, 'ts'),
        actionId: asString(b.actionId, 'actionId'),
        ...(b.value === undefined ? {} : { value: b.value as string | string[] }),
      }),
    ),
  );
  app.post(
    '/sandbox/choose',
    withDriver(ctx, (d, b) =>
      d.choose({
        user: asString(b.user, 'user'),
        channel: asString(b.channel, 'channel'),
        ts: asString(b.ts, 'ts'),
        actionId: asString(b.actionId, 'actionId'),
        value: b.value as string | string[],
      }),
    ),
  );
  app.post(
    '/sandbox/submit',
    withDriver(ctx, (d, b) =>
      d.submitView({
        user: asString(b.user, 'user'),
        viewId: asString(b.viewId, 'viewId'),
        values: (b.values ?? {}) as Record<string, Record<string, string | string[] | undefined>>,
      }),
    ),
  );
  // A press (or a choice) inside a view — the Home tab, a modal — with what is typed in the modal so far.
  app.post(
    '/sandbox/view-act',
    withDriver(ctx, (d, b) =>
      d.actInView({
        user: asString(b.user, 'user'),
        viewId: asString(b.viewId, 'viewId'),
        actionId: asString(b.actionId, 'actionId'),
        ...(typeof b.blockId === 'string' ? { blockId: b.blockId } : {}),
        ...(b.value === undefined ? {} : { value: b.value as string | string[] }),
        ...(b.values === undefined ? {} : { values: b.values as ViewValues }),
      }),
    ),
  );
  app.post(
    '/sandbox/close',
    withDriver(ctx, (d, b) =>
      d.closeView({ user: asString(b.user, 'user'), viewId: asString(b.viewId, 'viewId') }),
    ),
  );
  app.post(
    '/sandbox/home',
    withDriver(ctx, (d, b) => d.appHomeOpened({ user: asString(b.user, 'user') })),
  );
}
