import type { SandboxMessage, SandboxView, Workspace } from '@agent-sessions/slack-sandbox';
import { textOf, WAIT_MS } from './harness.js';

type Obj = Record<string, unknown>;

/** The action_ids of a message's interactive elements (buttons, selects, checkboxes). */
export function actionIds(message: SandboxMessage | undefined): string[] {
  const out: string[] = [];
  for (const block of (message?.blocks ?? []) as Obj[]) {
    for (const e of (block.elements as Obj[] | undefined) ?? [])
      if (e.action_id) out.push(String(e.action_id));
    const accessory = block.accessory as Obj | undefined;
    if (accessory?.action_id) out.push(String(accessory.action_id));
  }
  return out;
}

/** The prompt in a thread: the message mentioning "The agent asks" with controls. */
export const isPrompt = (m: SandboxMessage) => /The agent asks/.test(textOf(m)) && actionIds(m).length > 0;

export const HUMAN_INPUT_ROUTE = 'POST /v1/sessions/:id/human-input/:inputId';
export const SIGNAL_ROUTE = 'POST /v1/sessions/:id/signal';

/** Thread message keys (our metadata); a key seen twice is a double post. */
/**
 * Every key the bot's posts carry, a batch's each (a thread that fell behind gets several agent messages
 * in one post: `key` is the first, `keys` the JSON list of all).
 */
export function postKeys(thread: SandboxMessage[]): string[] {
  return thread.flatMap((m) => {
    const payload = (m.metadata as { event_payload?: { key?: string; keys?: string } } | undefined)
      ?.event_payload;
    if (typeof payload?.keys === 'string') return JSON.parse(payload.keys) as string[];
    return typeof payload?.key === 'string' ? [payload.key] : [];
  });
}

export function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

/**
 * The session cards of `goals`, in their order, once every one is in the channel. A goal's words after its
 * scenario name (`scenario:approval release 0` → "release 0") are its card's alone.
 */
export function cardsOf(ws: Workspace, channel: string, goals: string[]): Promise<SandboxMessage[]> {
  const cardOf = (goal: string) =>
    (ws.messages.get(channel) ?? []).find(
      (m) => !m.thread_ts && textOf(m).includes(goal.split(' ').slice(1).join(' ')),
    );
  return ws.waitFor(
    () => {
      const found = goals.map(cardOf);
      return found.every(Boolean) ? (found as SandboxMessage[]) : undefined;
    },
    { what: `${goals.length} cards`, timeoutMs: WAIT_MS },
  );
}

/** The callback_id of the confirmation a workflow step opens for the person who ran the workflow. */
export const STEP_CONFIRMATION = 'workflow_confirm_start';

interface ModalDriver {
  openModal(user: string): SandboxView | undefined;
  submitView(input: {
    user: string;
    viewId: string;
    values: Record<string, never>;
  }): Promise<{ status: number }>;
}

/** The step's confirmation open for `user` (once the bot opened it with the step's interactivity pointer). */
export function stepConfirmation(ws: Workspace, driver: Pick<ModalDriver, 'openModal'>, user: string) {
  return ws.waitFor(
    () => {
      const modal = driver.openModal(user);
      return modal?.callback_id === STEP_CONFIRMATION ? modal : undefined;
    },
    { what: `the workflow step's confirmation for ${user}`, timeoutMs: WAIT_MS },
  );
}

/** `user` presses Start in the step's confirmation (through `driver`: any replica may receive it). */
export async function confirmStep(ws: Workspace, driver: ModalDriver, user: string): Promise<SandboxView> {
  const view = await stepConfirmation(ws, driver, user);
  const answer = await driver.submitView({ user, viewId: view.id, values: {} });
  if (answer.status !== 200) throw new Error(`the confirmation's submission answered ${answer.status}`);
  return view;
}
