import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { registerListeners } from '../../src/app.js';
import { ACTIONS, VIEWS } from '../../src/blocks/ids.js';
import { args, asContext, fakeContext, recorder } from './fake-args.js';

describe('registerListeners', () => {
  it('registers a listener for every action, view, command and event the bot builds', () => {
    const registered: Record<string, string[]> = { action: [], view: [], command: [], event: [] };
    const note = (kind: string) => (id: string | RegExp | { type?: string; callback_id?: unknown }) =>
      void registered[kind]?.push(
        typeof id === 'object' && !(id instanceof RegExp)
          ? `${id.type}:${String(id.callback_id)}`
          : String(id),
      );
    const app = args<App>({
      action: note('action'),
      view: note('view'),
      command: note('command'),
      event: note('event'),
    });
    registerListeners(app, asContext(fakeContext(recorder().rec)));
    const actions = registered.action ?? [];
    for (const id of Object.values(ACTIONS).filter((a) => a !== ACTIONS.choose))
      expect(actions).toContain(id);
    expect(actions).toContain(`/^${ACTIONS.choose}_\\d+$/`);
    expect(registered.view).toEqual(expect.arrayContaining(Object.values(VIEWS)));
    // A closed modal of any kind is acknowledged (Bolt logs an error for one that isn't, after 3 s).
    expect(registered.view).toContain('view_closed:/.*/');
    expect(registered.command).toEqual([
      '/agent',
      '/^\\/(pause|resume|cancel|redirect|budget|agent-status)$/',
    ]);
    expect(registered.event).toEqual([
      'app_home_opened',
      'message',
      'app_mention',
      'agent_session_stopped',
      'code_channel_action',
      'user_change',
    ]);
  });
});
