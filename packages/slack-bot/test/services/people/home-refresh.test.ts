import type { HomeView } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { HomeRefresher } from '../../../src/services/people/home-refresh.js';
import { inWorkspace } from '../../../src/workspace.js';

const home = (text: string): HomeView => ({
  type: 'home',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});
const logger = createLogger({ secrets: [], level: 'silent' });

function refresher(shown: Map<string, string>) {
  const published: Array<{ userId: string; text: string }> = [];
  const homes = new HomeRefresher({
    build: async (userId) => home(shown.get(userId) ?? ''),
    publish: async (userId, view) => {
      published.push({ userId, text: JSON.stringify(view) });
    },
    logger,
  });
  return { homes, published };
}

describe('HomeRefresher', () => {
  it('republishes only the Homes that changed, once however many changes came in the window', async () => {
    const shown = new Map([
      ['U0ALICE', 'waiting on you (1)'],
      ['U0BOB', 'your sessions'],
    ]);
    const { homes, published } = refresher(shown);
    homes.opened('U0ALICE', home('waiting on you (1)'));
    homes.opened('U0BOB', home('your sessions'));
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
    homes.stop();
  });

  it('a change in one workspace touches only the Homes opened in it', async () => {
    const shown = new Map([['U0ALICE', 'changed']]);
    const { homes, published } = refresher(shown);
    const north = { key: 'T0NORTH', teamId: 'T0NORTH', isEnterpriseInstall: false, isolated: true };
    const south = { key: 'T0SOUTH', teamId: 'T0SOUTH', isEnterpriseInstall: false, isolated: true };
    inWorkspace(north, () => homes.opened('U0ALICE', home('before')));
    inWorkspace(south, () => homes.changed());
    await homes.flush();
    expect(published).toEqual([]);
    inWorkspace(north, () => homes.changed());
    await homes.flush();
    expect(published.map((p) => p.userId)).toEqual(['U0ALICE']);
    homes.stop();
  });

  it('a Home never opened is never published', async () => {
    const { homes, published } = refresher(new Map([['U0CAROL', 'anything']]));
    homes.changed();
    await homes.flush();
    expect(published).toEqual([]);
    homes.stop();
  });
});
