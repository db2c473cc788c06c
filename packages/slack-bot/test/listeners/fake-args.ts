/**
 * Listener arguments as Bolt passes them, with `ack`, `respond` and `client` recording what the listener
 * did and services that answer as a test says. Listeners are called directly, as Slack's starter
 * template tests them: Bolt's own routing is exercised end to end in test/e2e.
 */
import type { HomeView, ModalView } from '@slack/types';
import { vi } from 'vitest';
import type { SlackMessage } from '../../src/blocks/text.js';
import type { ListenerContext } from '../../src/listeners/context.js';
import type { FormResult, Outcome } from '../../src/services/outcome.js';
import { logger } from '../fakes.js';

export interface Recorded {
  /** In the order they happened: 'ack', 'respond', 'views.open', … */
  order: string[];
  acks: unknown[];
  responses: unknown[];
  opened: ModalView[];
  published: unknown[];
}

export function recorder() {
  const rec: Recorded = { order: [], acks: [], responses: [], opened: [], published: [] };
  const ack = vi.fn(async (response?: unknown) => {
    rec.order.push('ack');
    rec.acks.push(response);
  });
  const respond = vi.fn(async (message: unknown) => {
    rec.order.push('respond');
    rec.responses.push(message);
  });
  const client = {
    chat: {
      postMessage: vi.fn(async (args: { channel: string; text: string }) => {
        rec.order.push('chat.postMessage');
        rec.responses.push(args);
        return { ok: true };
      }),
    },
    views: {
      open: vi.fn(async ({ view }: { view: ModalView }) => {
        rec.order.push('views.open');
        rec.opened.push(view);
        return { ok: true };
      }),
      publish: vi.fn(async (args: unknown) => {
        rec.order.push('views.publish');
        rec.published.push(args);
        return { ok: true };
      }),
    },
  };
  return { rec, ack, respond, client, logger };
}

/** Services whose every method records its call and answers `{ ok: true }` unless a test says otherwise. */
export function fakeContext(rec: Recorded) {
  const log = <T>(name: string, result: T) =>
    vi.fn(async (..._args: unknown[]) => {
      rec.order.push(name);
      return result;
    });
  const ok: Outcome = { ok: true };
  const form: FormResult = { ok: true, run: vi.fn(async () => void rec.order.push('run')) };
  const formFn = vi.fn((..._args: unknown[]): FormResult => form);
  return {
    answering: {
      answer: log<Outcome>('answering.answer', ok),
      openForm: log<Outcome<{ view: ModalView }>>('answering.openForm', {
        ok: true,
        view: modal('answer_input'),
      }),
      submitForm: log<FormResult>('answering.submitForm', form),
    },
    steering: {
      signal: log<Outcome>('steering.signal', ok),
      openForm: log<Outcome<{ view: ModalView }>>('steering.openForm', {
        ok: true,
        view: modal('redirect_session'),
      }),
      resume: log<Outcome<{ view?: ModalView }>>('steering.resume', ok),
      submitRedirect: formFn,
      submitBudget: formFn,
    },
    starting: {
      start: log<Outcome<{ sessionId: string }>>('starting.start', { ok: true, sessionId: 's' }),
      submitForm: formFn,
    },
    directory: {
      list: log<string>('directory.list', 'No active agent sessions'),
      status: log<string | SlackMessage>('directory.status', 'No session'),
      history: log<string>('directory.history', 'There is no session `s` that you can see.'),
      home: log<HomeView | undefined>('directory.home', { type: 'home', blocks: [] }),
    },
    // Publishes what the listener draws, as HomeViews does (its hashes are tested on the sandbox).
    homeViews: {
      publish: vi.fn(async (userId: string, draw: () => Promise<HomeView | undefined>) => {
        const view = await draw();
        if (!view) return undefined;
        rec.order.push('views.publish');
        rec.published.push({ user_id: userId, view });
        return view;
      }),
    },
    conversation: { handle: log<void>('conversation.handle', undefined) },
    feedback: {
      record: log<Outcome<{ message: string }>>('feedback.record', {
        ok: true,
        message: 'Thanks — noted 👍',
      }),
    },
    stopping: { stop: log<void>('stopping.stop', undefined) },
    messagesTab: { opened: log<void>('messagesTab.opened', undefined) },
    channelSettings: {
      open: log<Outcome<{ view: ModalView }>>('channelSettings.open', {
        ok: true,
        view: modal('channel_settings'),
      }),
      submitForm: formFn,
    },
    codeChannels: {
      command: log<{ say: string }>('codeChannels.command', { say: '⏸️ Paused.' }),
      action: log<void>('codeChannels.action', undefined),
    },
    logger,
    form,
  };
}

/** The fake context as the listeners' type: the fakes implement what the listeners call. */
export const asContext = (ctx: ReturnType<typeof fakeContext>): ListenerContext =>
  ctx as unknown as ListenerContext;

export const modal = (callbackId: string): ModalView => ({
  type: 'modal',
  callback_id: callbackId,
  title: { type: 'plain_text', text: 'x' },
  blocks: [],
});

/** Bolt's middleware arguments, assembled from the parts a listener reads. */
export const args = <T>(parts: Record<string, unknown>): T => parts as unknown as T;

export const user = { id: 'U0ALICE', username: 'alice', name: 'alice', team_id: 'T0' };

export function blockAction(action: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    type: 'block_actions',
    user,
    trigger_id: 'trigger-1',
    container: {
      type: 'message',
      message_ts: '1700000000.000200',
      channel_id: 'C0AGENTS',
      is_ephemeral: false,
    },
    actions: [action],
    ...extra,
  };
}

export function viewSubmission(callbackId: string, metadata: object, values: Record<string, unknown>) {
  const state: Record<string, Record<string, unknown>> = {};
  for (const [blockId, value] of Object.entries(values)) {
    state[blockId] = {
      value: Array.isArray(value)
        ? { type: 'checkboxes', selected_options: value.map((v) => ({ value: v })) }
        : { type: 'plain_text_input', value },
    };
  }
  return {
    view: { callback_id: callbackId, private_metadata: JSON.stringify(metadata), state: { values: state } },
    body: { type: 'view_submission', user },
  };
}
