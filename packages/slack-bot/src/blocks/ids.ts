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
  feedback: 'session_feedback',
} as const;

export const VIEWS = {
  start: 'start_session',
  redirect: 'redirect_session',
  reject: 'reject_input',
  answer: 'answer_input',
  raiseBudget: 'raise_budget',
  channelSettings: 'channel_settings',
  workflowConfirm: 'workflow_confirm_start',
} as const;

export { type ActionRef, type DecodedRef, decodeRef, encodeRef, REF_LIMITS, refKeyOf } from '../refs.js';
