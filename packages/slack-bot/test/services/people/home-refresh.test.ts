import type { HomeView } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { HomeRefresher } from '../../../src/services/people/home-refresh.js';
import { HomeViews } from '../../../src/services/people/home-views.js';
import { inWorkspace } from '../../../src/workspace.js';

const home = (text: string): HomeView => ({
  type: 'home',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});
const logger = createLogger({ secrets: [], level: 'silent' });

/** Slack's views.publish as far as these tests need it: each Home published gets a new hash. */
function fakeSlack() {
  const published: Array<{ userId: string; text: string }> = [];
  const views = new HomeViews({
    publish: async ({ user_id, view }) => {
      published.push({ userId: user_id, text: JSON.stringify(view) });
      return { view: { ...view, hash: `h${published.length}` } };
    },
    logger,
  });
  return { views, published };
}

function refresher(shown: Map<string, string>) {
  const { views, published } = fakeSlack();
  const homes = new HomeRefresher({ build: async (userId) => home(shown.get(userId) ?? ''), views, logger });
  /** The person opens their Home and is shown `text` (app_home_opened publishes through the same views). */
  const open = async (userId: string, text: string) => {
    await views.publish(userId, async () => home(text));
    homes.opened(userId);
  };
  return { homes, published, open };
}

describe('HomeRefresher', () => {
  it('republishes only the Homes that changed, once however many changes came in the window', async () => {
    const shown = new Map([
      ['U0ALICE', 'waiting on you (1)'],
      ['U0BOB', 'your sessions'],
    ]);
    const { homes, published, open } = refresher(shown);
    await open('U0ALICE', 'waiting on you (1)');
    await open('U0BOB', 'your sessions');
    published.length = 0;
    shown.set('U0ALICE', 'nothing waiting');
    homes.changed();
    homes.changed();
    homes.changed();
    await homes.flush();
    expect(published.map((p) => p.userId)).toEqual(['U0ALICE']);
    expect(published[0]?.text).toContain('nothing waiting');
    // Nothing new since: nothing published.
    homes.changed();
    await homes.flush();
    expect(published).toHaveLength(1);
    await homes.stop();
  });

  it('a change in one workspace touches only the Homes opened in it', async () => {
    const shown = new Map([['U0ALICE', 'changed']]);
    const { homes, published, open } = refresher(shown);
    const north = { key: 'T0NORTH', teamId: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
    const south = { key: 'T0SOUTH', teamId: 'T0SOUTH', isEnterpriseInstall: false, isolated: true };
    await inWorkspace(north, () => open('U0ALICE', 'before'));
    published.length = 0;
    inWorkspace(south, () => homes.changed());
    await homes.flush();
    expect(published).toEqual([]);
    inWorkspace(north, () => homes.changed());
    await homes.flush();
    expect(published.map((p) => p.userId)).toEqual(['U0ALICE']);
    await homes.stop();
  });

  it('a Home never opened is never published', async () => {
    const { homes, published } = refresher(new Map([['U0CAROL', 'anything']]));
    homes.changed();
    await homes.flush();
    expect(published).toEqual([]);
    await homes.stop();
  });
});

describe('HomeRefresher stopped', () => {
  it('awaits the refresh on its way and draws no other Home, so none reads the store once it is closed', async () => {
    const { views, published } = fakeSlack();
    const built: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const homes = new HomeRefresher({
      build: async (userId) => {
        built.push(userId);
        if (built.length === 1) await held;
        return home(`changed for ${userId}`);
      },
      views,
      logger,
      coalesceMs: 0,
    });
    homes.opened('U0ALICE');
    homes.opened('U0BOB');
    homes.changed();
    await expect.poll(() => built.length).toBe(1);
    let stopped = false;
    const stopping = homes.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(built).toHaveLength(1);
    expect(published).toHaveLength(1);
    homes.changed();
    await homes.flush();
    expect(built).toHaveLength(1);
  });
});

describe('HomeRefresher’s memory of viewers', () => {
  it('keeps maxViewers people: the one who opened their Home least recently is forgotten first', async () => {
    const shown = new Map<string, string>();
    const { views, published } = fakeSlack();
    const homes = new HomeRefresher({
      build: async (userId) => home(shown.get(userId) ?? ''),
      views,
      logger,
      maxViewers: 2,
    });
    homes.opened('U0ALICE');
    homes.opened('U0BOB');
    homes.opened('U0ALICE'); // Alice again: Bob is now the least recent
    homes.opened('U0CAROL');
    for (const user of ['U0ALICE', 'U0BOB', 'U0CAROL']) shown.set(user, 'changed');
    homes.changed();
    await homes.flush();
    await homes.stop();
    expect(published.map((p) => p.userId).sort()).toEqual(['U0ALICE', 'U0CAROL']);
  });
});
