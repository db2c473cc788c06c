import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { HomeView, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { NO_RETRIES, useSandboxWithClient } from '../../../../../test/support/world.js';
import { appHomeOpened } from '../../../src/listeners/events/app-home-opened.js';
import { HomeViews } from '../../../src/services/people/home-views.js';
import { logger } from '../../fakes.js';
import { args, asContext, fakeContext, recorder } from '../../listeners/fake-args.js';

// App Home's publishes against the sandbox's views.publish, which answers a stale hash as Slack does
// (`hash_conflict`): a Home drawn from what the store said before a change must not be what stays shown.

const world = useSandboxWithClient({}, NO_RETRIES);

/** A promise the test settles: where a draw stops after reading, until the test lets it go on. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });
const homeOf = (text: string): HomeView => ({ type: 'home', blocks: [section(text)] });

/** The person's Home as the sandbox shows it now: its text, and the hash Slack would send with it. */
function shown(user: string): { text: string; hash: string } | undefined {
  const { workspace } = world.sandbox;
  const id = workspace.homeViews.get(user);
  const view = id ? workspace.views.get(id) : undefined;
  return view ? { text: JSON.stringify(view.blocks), hash: view.hash } : undefined;
}

/**
 * What the service keys say, read when a Home is drawn; the draw numbered `stopAt` stops right after
 * reading, until `release.open()`.
 */
function keySection(stopAt: number) {
  const state = { key: 'Workspace key: sk_…a1b2', draws: 0 };
  const read = gate();
  const release = gate();
  const homeBlocks = async (_userId: string): Promise<KnownBlock[]> => {
    const seen = state.key;
    state.draws += 1;
    if (state.draws === stopAt) {
      read.open();
      await release.opened;
    }
    return [section(seen)];
  };
  return { state, read, release, homeBlocks };
}

type OpenedArgs = SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs;

/** The app_home_opened listener as the bot runs it, publishing through `views` to the sandbox. */
function openedListener(keys: ReturnType<typeof keySection>, views: HomeViews) {
  const r = recorder();
  const ctx = {
    ...fakeContext(r.rec),
    keys: { homeBlocks: keys.homeBlocks },
    homeViews: views,
    directory: {
      home: async (_userId: string, _eventId: string | undefined, top: KnownBlock[] = []) =>
        ({ type: 'home', blocks: top }) as HomeView,
    },
  };
  const listener = appHomeOpened(asContext(ctx as unknown as ReturnType<typeof fakeContext>));
  let n = 0;
  return (user: string) => {
    n += 1;
    const hash = shown(user)?.hash;
    const event = { type: 'app_home_opened', user, channel: `D${user}`, tab: 'home', event_ts: `${n}.0` };
    return listener(
      args<OpenedArgs>({
        event: hash ? { ...event, view: { type: 'home', hash } } : event,
        body: { event_id: `EvHome${n}` },
        client: world.slack,
      }),
    );
  };
}

const conflicts = () =>
  world.sandbox.workspace.apiCalls.filter((c) => c.method === 'views.publish' && c.error === 'hash_conflict')
    .length;

const publishTo = (slack: typeof world.slack) => (a: { user_id: string; view: HomeView; hash?: string }) =>
  slack.views.publish(a);

describe('App Home: an older draw finishing last', () => {
  it('two opens of the Home, the first drawn before a key is removed and published after: the Home ends true', async () => {
    const keys = keySection(2);
    const open = openedListener(keys, new HomeViews({ publish: publishTo(world.slack), logger }));
    await open('U0ALICE');
    expect(shown('U0ALICE')?.text).toContain('sk_…a1b2');
    // Alice opens her Home again; its draw reads the key, then is slow to publish.
    const older = open('U0ALICE');
    await keys.read.opened;
    // Meanwhile an admin removes the key and her Home is drawn and published again.
    keys.state.key = 'No service key linked';
    await open('U0ALICE');
    expect(shown('U0ALICE')?.text).toContain('No service key linked');
    // The older draw finishes last.
    keys.release.open();
    await older;
    expect(shown('U0ALICE')?.text).toContain('No service key linked');
    expect(shown('U0ALICE')?.text).not.toContain('sk_…a1b2');
    // Slack refused the older draw's hash once, and the Home was drawn again from the store.
    expect(conflicts()).toBe(1);
    expect(keys.state.draws).toBe(4);
  });
});

/** A draw of `state.text`, read when called; the draw numbered `stopAt` stops after reading until released. */
function drawing(text: string, stopAt = 0) {
  const state = { text, draws: 0 };
  const read = gate();
  const release = gate();
  const draw = async (): Promise<HomeView> => {
    const seen = state.text;
    state.draws += 1;
    if (state.draws === stopAt) {
      read.open();
      await release.opened;
    }
    return homeOf(seen);
  };
  return { state, read, release, draw };
}

const since = (mark: number) =>
  world.sandbox.workspace.apiCalls
    .slice(mark)
    .filter((c) => c.method === 'views.publish' && c.error === 'hash_conflict').length;

describe('HomeViews', () => {
  it('across replicas: the one whose draw is older is refused its hash, and publishes a fresh draw', async () => {
    const a = new HomeViews({ publish: publishTo(world.slack), logger });
    const b = new HomeViews({ publish: publishTo(world.slack), logger });
    const home = drawing('question waiting on you', 2);
    await a.publish('U0BOB', home.draw);
    const mark = world.sandbox.workspace.apiCalls.length;
    const older = a.publish('U0BOB', home.draw);
    await home.read.opened;
    // Bob answers; replica B (which never published his Home, so knows no hash) draws and publishes it.
    home.state.text = 'nothing waiting';
    await b.publish('U0BOB', home.draw);
    home.release.open();
    expect(await older).toEqual(homeOf('nothing waiting'));
    expect(shown('U0BOB')?.text).toContain('nothing waiting');
    expect(since(mark)).toBe(1);
  });

  it('a first Home, with no hash known yet: a second draw waits for the first to be published', async () => {
    const views = new HomeViews({ publish: publishTo(world.slack), logger });
    const home = drawing('Your agent sessions: none yet', 1);
    expect(shown('U0CAROL')).toBeUndefined();
    const first = views.publish('U0CAROL', home.draw);
    await home.read.opened;
    home.state.text = 'Your agent sessions: fix the build';
    const second = views.publish('U0CAROL', home.draw);
    home.release.open();
    await Promise.all([first, second]);
    expect(shown('U0CAROL')?.text).toContain('fix the build');
  });

  it('one person’s slow or refused publish holds back nobody else’s', async () => {
    const views = new HomeViews({ publish: publishTo(world.slack), logger });
    const alice = drawing('Alice, held', 1);
    const held = views.publish('U0ALICE', alice.draw);
    await alice.read.opened;
    // Bob's Home goes out while Alice's draw is still held (a lock across people would wait here forever).
    expect(await views.publish('U0BOB', async () => homeOf('Bob, not held'))).toEqual(
      homeOf('Bob, not held'),
    );
    expect(shown('U0BOB')?.text).toContain('Bob, not held');
    alice.release.open();
    await held;
    expect(shown('U0ALICE')?.text).toContain('Alice, held');
  });

  it('a Home published over during every draw: three tries with a hash, then one without, from a fresh read', async () => {
    const views = new HomeViews({ publish: publishTo(world.slack), logger });
    await views.publish('U0CAROL', async () => homeOf('before'));
    const mark = world.sandbox.workspace.apiCalls.length;
    let draws = 0;
    const draw = async () => {
      draws += 1;
      // Someone else's publish lands while this draw reads, on the first three draws.
      if (draws <= 3) await views.publish('U0CAROL', async () => homeOf(`someone else’s ${draws}`));
      return homeOf(`draw ${draws}`);
    };
    expect(await views.publish('U0CAROL', draw)).toEqual(homeOf('draw 4'));
    expect(since(mark)).toBe(3);
    expect(shown('U0CAROL')?.text).toContain('draw 4');
  });

  it('a refresh publishes nothing when its draw is what this replica last published, and something new when not', async () => {
    const views = new HomeViews({ publish: publishTo(world.slack), logger });
    await views.publish('U0ALICE', async () => homeOf('same'));
    const mark = world.sandbox.workspace.apiCalls.length;
    expect(await views.publish('U0ALICE', async () => homeOf('same'), { unlessShown: true })).toBeUndefined();
    expect(world.sandbox.workspace.apiCalls.length).toBe(mark);
    expect(await views.publish('U0ALICE', async () => homeOf('new'), { unlessShown: true })).toEqual(
      homeOf('new'),
    );
    expect(shown('U0ALICE')?.text).toContain('new');
  });
});
