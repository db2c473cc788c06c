/** A message's or a view's interactive elements, and the `state.values` Slack sends for what a person chose. */

export type Obj = Record<string, unknown>;
export type ElementRef = { blockId: string; element: Obj };

/** What a person has picked in a message's checkboxes and selects before clicking a button. */
export type Draft = Record<string, Record<string, Obj>>;

export function elementsOf(blocks: unknown): ElementRef[] {
  if (!Array.isArray(blocks)) return [];
  const out: ElementRef[] = [];
  blocks.forEach((block: Obj, i) => {
    const blockId = typeof block.block_id === 'string' ? block.block_id : `b${i}`;
    if (Array.isArray(block.elements) && (block.type === 'actions' || block.type === 'context_actions')) {
      for (const e of block.elements as Obj[]) out.push({ blockId, element: e });
    }
    if (block.accessory && typeof block.accessory === 'object')
      out.push({ blockId, element: block.accessory as Obj });
    if (block.element && typeof block.element === 'object')
      out.push({ blockId, element: block.element as Obj });
  });
  return out;
}

function optionByValue(element: Obj, value: string): Obj {
  const options = (element.options ?? []) as Obj[];
  const option = options.find((o) => o.value === value);
  if (!option) throw new Error(`sandbox driver: "${value}" is not an option of ${String(element.action_id)}`);
  return option;
}

/** The `state.values` entry Slack sends for an element given what the person typed or chose. */
export function stateValue(element: Obj, value: unknown): Obj {
  const type = String(element.type);
  switch (type) {
    case 'plain_text_input':
      return { type, value: value === undefined ? null : String(value) };
    case 'static_select':
    case 'radio_buttons':
      return { type, selected_option: value === undefined ? null : optionByValue(element, String(value)) };
    case 'multi_static_select':
    case 'checkboxes': {
      const values = Array.isArray(value) ? value.map(String) : [];
      return { type, selected_options: values.map((v) => optionByValue(element, v)) };
    }
    default:
      return { type, value };
  }
}

/** The action Slack sends when a person presses a button or changes a select, checkboxes or input. */
export function actionOf(ref: ElementRef, value: string | string[] | undefined): Obj {
  const element = ref.element;
  const action: Obj = {
    type: element.type,
    action_id: element.action_id,
    block_id: ref.blockId,
    action_ts: `${Date.now() / 1000}`,
  };
  if (element.type === 'button' || element.type === 'icon_button') {
    action.text = element.text;
    if (element.value !== undefined) action.value = element.value;
    if (element.style !== undefined) action.style = element.style;
  } else if (element.type === 'feedback_buttons') {
    // A press of 👍 or 👎: the action carries the pressed button's text and value.
    const pressed = [element.positive_button, element.negative_button].find(
      (b) => (b as Obj | undefined)?.value === value,
    ) as Obj | undefined;
    if (!pressed)
      throw new Error(
        `sandbox driver: ${String(element.action_id)} has no button with value ${JSON.stringify(value)}`,
      );
    action.text = pressed.text;
    action.value = pressed.value;
  } else {
    Object.assign(action, stateValue(element, value));
  }
  return action;
}

/**
 * A modal's `state.values` for what the person typed or chose: every input of the view, typed or not,
 * as Slack sends it. A value given for an input the view doesn't have is refused.
 */
export function viewStateValues(
  blocks: unknown,
  given: Record<string, Record<string, string | string[] | undefined>>,
): Draft {
  const values: Draft = {};
  for (const ref of elementsOf(blocks)) {
    const actionId = String(ref.element.action_id);
    const value = given[ref.blockId]?.[actionId];
    values[ref.blockId] = { ...values[ref.blockId], [actionId]: stateValue(ref.element, value) };
  }
  for (const [blockId, byAction] of Object.entries(given)) {
    for (const actionId of Object.keys(byAction)) {
      if (!values[blockId]?.[actionId])
        throw new Error(`sandbox driver: the view has no ${blockId}/${actionId}`);
    }
  }
  return values;
}
