/** action_ids and callback_ids the listeners match, in one place. */
export const ACTIONS = {
  pause: 'session_pause',
  resume: 'session_resume',
  cancel: 'session_cancel',
  redirect: 'session_redirect',
  approve: 'input_approve',
  reject: 'input_reject',
  choose: 'input_choose',
  select: 'input_select',
  multiChoice: 'input_multi_choice',
  submitChoices: 'input_submit_choices',
  answer: 'input_answer',
  raiseBudget: 'budget_raise',
} as const;

export const VIEWS = {
  start: 'start_session',
  redirect: 'redirect_session',
  reject: 'reject_input',
  answer: 'answer_input',
  raiseBudget: 'raise_budget',
} as const;

/** What a button carries: which session and request it acts on (values are capped at 2000 characters). */
export interface ActionRef {
  sessionId: string;
  inputId?: string;
  /** For option buttons: the option's index in the request (option ids may be longer than Slack allows). */
  option?: number;
}

export const encodeRef = (ref: ActionRef): string => JSON.stringify(ref);

export function decodeRef(value: string | undefined): ActionRef | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as ActionRef;
    return typeof parsed.sessionId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
