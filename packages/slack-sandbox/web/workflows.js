// Workflow Builder on the page: for each custom step the app declares, a workflow of three steps — a form
// (the step's inputs), the app's step, and a message posting its outputs in a channel — and the runs so far
// with their outputs or the step's error. Running one goes to /sandbox/workflow, which the driver turns into
// the function_executed event Slack sends the bot.

import { escapeHtml } from '/web/render.js';
import { $, post, ui } from '/web/state.js';

const workflows = () => ui.state?.workflows ?? { definitions: {}, executions: [] };

// A form field per declared input: people and channels as pickers, numbers as numbers.
function field(name, param, required) {
  const s = ui.state;
  const label = `${escapeHtml(param.title ?? name)}${required ? ' *' : ''}`;
  const id = `wf-${escapeHtml(name)}`;
  let input;
  if (param.type === 'slack#/types/user_id') {
    const people = s.users.filter((u) => !u.is_bot);
    input = `<select id="${id}" name="${escapeHtml(name)}"><option value="">—</option>${people
      .map(
        (u) =>
          `<option value="${u.id}"${u.id === ui.user ? ' selected' : ''}>${escapeHtml(u.real_name)}</option>`,
      )
      .join('')}</select>`;
  } else if (param.type === 'slack#/types/channel_id') {
    const channels = s.channels.filter((c) => !c.is_im);
    input = `<select id="${id}" name="${escapeHtml(name)}"><option value="">—</option>${channels
      .map(
        (c) =>
          `<option value="${c.id}"${c.id === ui.channel ? ' selected' : ''}>#${escapeHtml(c.name)}</option>`,
      )
      .join('')}</select>`;
  } else {
    const type = param.type === 'number' || param.type === 'integer' ? 'number' : 'text';
    const step = param.type === 'number' ? ' step="any"' : '';
    input = `<input id="${id}" name="${escapeHtml(name)}" type="${type}"${step}${required ? ' required' : ''}>`;
  }
  return `<label class="wf-field" title="${escapeHtml(param.description ?? '')}">${label}${input}</label>`;
}

function workflowForm(callbackId, definition) {
  const { properties, required = [] } = definition.input_parameters;
  const channels = ui.state.channels.filter((c) => !c.is_im);
  // Who runs it (an interactivity input) is Slack's to fill in: Workflow Builder shows no field for it.
  const fields = Object.entries(properties)
    .filter(([, param]) => param.type !== 'slack#/types/interactivity')
    .map(([name, param]) => field(name, param, required.includes(name)))
    .join('');
  return `<form class="wf-form" data-testid="workflow-form" data-callback-id="${escapeHtml(callbackId)}">
<div class="wf-title">Workflow: ${escapeHtml(definition.title)}</div>
<div class="wf-step">1 · Form</div>${fields}
<div class="wf-step">2 · ${escapeHtml(definition.title)} <small>(the app's step)</small></div>
<div class="wf-step">3 · Send a message with its outputs to
<select name="__next" data-testid="workflow-next">${channels
    .map(
      (c) =>
        `<option value="${c.id}"${c.id === ui.channel ? ' selected' : ''}>#${escapeHtml(c.name)}</option>`,
    )
    .join('')}</select></div>
<button class="button primary" type="submit" data-testid="workflow-run">Run workflow</button></form>`;
}

function runOf(execution, definitions) {
  const title = definitions[execution.callbackId]?.title ?? execution.callbackId;
  const outputs = execution.outputs
    ? `<dl class="wf-outputs" data-testid="workflow-outputs">${Object.entries(execution.outputs)
        .map(
          ([k, v]) =>
            `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(typeof v === 'string' ? v : JSON.stringify(v))}</dd>`,
        )
        .join('')}</dl>`
    : '';
  const error = execution.error
    ? `<div class="wf-error" data-testid="workflow-error">${escapeHtml(execution.error)}</div>`
    : '';
  return `<li class="wf-run" data-testid="workflow-run-state" data-execution-id="${escapeHtml(execution.id)}" data-state="${escapeHtml(execution.state)}"><b>${escapeHtml(title)}</b> · ${escapeHtml(execution.state)}${outputs}${error}</li>`;
}

// What is typed in the forms so far, to put back when they are drawn again.
function typedIn(forms) {
  const typed = new Map();
  for (const input of forms.querySelectorAll('input[name], select[name]'))
    if (input.value !== '') typed.set(input.name, input.value);
  return typed;
}

// The panel, drawn again with each change of the workspace (keeping what is typed in the form).
export function renderWorkflows() {
  const panel = $('workflows-panel');
  if (!panel || !ui.state) return;
  const { definitions, executions } = workflows();
  const ids = Object.keys(definitions);
  panel.hidden = ids.length === 0;
  if (ids.length === 0) return;
  const forms = $('workflow-forms');
  const shown = forms.dataset.shown;
  // The channels too: a channel made meanwhile (a session's own) is offered at once.
  const channels = ui.state.channels.map((c) => `${c.id}:${c.name}`).join(',');
  const key = `${ui.user}|${ui.channel}|${ids.join(',')}|${channels}`;
  if (shown !== key) {
    const typed = typedIn(forms);
    forms.innerHTML = ids.map((id) => workflowForm(id, definitions[id])).join('');
    forms.dataset.shown = key;
    for (const [name, value] of typed) {
      const input = forms.querySelector(`[name="${CSS.escape(name)}"]`);
      if (input && [...(input.options ?? [{ value }])].some((o) => o.value === value)) input.value = value;
    }
  }
  $('workflow-runs').innerHTML = executions
    .slice(-8)
    .reverse()
    .map((e) => runOf(e, definitions))
    .join('');
}

document.addEventListener('submit', async (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('wf-form')) return;
  e.preventDefault();
  const values = {};
  let nextChannel = '';
  for (const [name, value] of new FormData(form)) {
    if (name === '__next') nextChannel = String(value);
    else values[name] = String(value);
  }
  await post('/sandbox/workflow', {
    callbackId: form.dataset.callbackId,
    user: ui.user,
    values,
    nextChannel,
  });
});
