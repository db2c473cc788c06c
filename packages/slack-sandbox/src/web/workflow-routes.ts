/**
 * A workflow on the page, as Workflow Builder builds one: a form whose values go into one of the app's
 * custom steps, then a step that posts its outputs in a channel. The form's values arrive as text and are
 * typed here by the step's declared inputs, as Workflow Builder types what a form collects.
 */
import type { Hono } from 'hono';
import type { SlackDriver } from '../driver.js';
import type { FunctionDefinition } from '../workflows/definitions.js';
import type { Workspace } from '../workspace.js';
import { connectedDriver, jsonRoute } from './json-route.js';

/** A form's text values as the step's inputs: numbers as numbers, empty fields left out. */
export function inputsFromForm(definition: FunctionDefinition, values: Record<string, unknown>) {
  const inputs: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(values)) {
    const declared = definition.input_parameters.properties[name];
    if (!declared) throw new Error(`${name} is not an input of this step`);
    if (raw === undefined || raw === null || raw === '') continue;
    if (declared.type === 'number' || declared.type === 'integer') {
      const n = Number(raw);
      if (!Number.isFinite(n) || (declared.type === 'integer' && !Number.isInteger(n)))
        throw new Error(`${name} must be ${declared.type === 'integer' ? 'a whole number' : 'a number'}`);
      inputs[name] = n;
    } else inputs[name] = typeof raw === 'string' ? raw : String(raw);
  }
  return inputs;
}

export function addWorkflowRoutes(
  app: Hono,
  ctx: { workspace: Workspace; driver(): SlackDriver | undefined },
) {
  // {callbackId, user, values: {input: text}, nextChannel?}: the workflow runs the step with the form's values.
  app.post(
    '/sandbox/workflow',
    jsonRoute(async (b) => {
      const callbackId = typeof b.callbackId === 'string' ? b.callbackId : '';
      const definition = ctx.workspace.workflows.definitions[callbackId];
      if (!definition) throw new Error(`the app declares no step ${callbackId || '(none given)'}`);
      if (typeof b.user !== 'string' || !ctx.workspace.users.has(b.user)) throw new Error('user is required');
      const values =
        typeof b.values === 'object' && b.values !== null ? (b.values as Record<string, unknown>) : {};
      const next =
        typeof b.nextChannel === 'string' && b.nextChannel !== '' ? { channel: b.nextChannel } : undefined;
      const run = await connectedDriver(() => ctx.driver()).runStep({
        callbackId,
        inputs: inputsFromForm(definition, values),
        user: b.user,
        ...(next ? { next } : {}),
      });
      // The page shows the execution; its token is the app's alone.
      return { execution: run.execution, deliveries: run.deliveries };
    }),
  );
}
