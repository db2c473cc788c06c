// Reading and putting back what a person typed or picked in a control, for a re-render to keep it and for
// a modal's submission to send it.
// What a control holds: the picks of checkboxes, radios or a select (a list), or the text typed.
export function readValue(el) {
  if (el.classList.contains('choices')) return [...el.querySelectorAll('input:checked')].map((i) => i.value);
  if (el.tagName === 'SELECT') return [...el.selectedOptions].map((o) => o.value);
  return el.value;
}

// Puts back what readValue gave: picks (a list) on choices and selects, text on a text input.
export function setValue(el, value) {
  if (el.classList.contains('choices'))
    for (const input of el.querySelectorAll('input')) input.checked = value.includes(input.value);
  else if (el.tagName === 'SELECT') for (const o of el.options) o.selected = value.includes(o.value);
  else el.value = value;
}

// What the person typed or picked in the open modal. A re-render (inline errors, views.update) puts it
// back, as Slack keeps an input's state while its block and action ids stay the same.
export function captureInputs(root) {
  return new Map(
    [...root.querySelectorAll('[data-input]')].map((el) => [
      `${el.dataset.block}|${el.dataset.action}`,
      readValue(el),
    ]),
  );
}

export function restoreInputs(root, saved) {
  for (const el of root.querySelectorAll('[data-input]')) {
    const value = saved.get(`${el.dataset.block}|${el.dataset.action}`);
    if (value !== undefined) setValue(el, value);
  }
}

// What the person picked in a modal, as the driver wants it: values[blockId][actionId].
export function modalValues(form) {
  const values = {};
  for (const el of form.querySelectorAll('[data-input]')) {
    const block = el.dataset.block;
    const action = el.dataset.action;
    let value;
    if (el.classList.contains('choices')) {
      const checked = readValue(el);
      value = el.dataset.kind === 'checkbox' ? checked : checked[0];
    } else if (el.tagName === 'SELECT' && el.multiple) value = readValue(el);
    else value = el.value === '' ? undefined : el.value;
    values[block] = { ...(values[block] ?? {}), [action]: value };
  }
  return values;
}
