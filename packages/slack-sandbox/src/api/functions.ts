import { json, type Method, required, SlackApiError } from './types.js';

/**
 * `functions.completeSuccess` and `functions.completeError`: a custom step's execution finishes, once.
 * Slack checks the outputs against the step's declared output parameters (workflows/definitions.ts).
 */
export const functions: Record<string, Method> = {
  'functions.completeSuccess': (args, { workspace }) => {
    const id = required(args, 'function_execution_id');
    if (args.outputs === undefined)
      throw new SlackApiError('invalid_arguments', {
        response_metadata: { messages: ['[ERROR] missing required field: outputs'] },
      });
    workspace.workflows.completeSuccess(id, json(args, 'outputs'));
    return { ok: true };
  },
  'functions.completeError': (args, { workspace }) => {
    const id = required(args, 'function_execution_id');
    workspace.workflows.completeError(id, required(args, 'error'));
    return { ok: true };
  },
};
