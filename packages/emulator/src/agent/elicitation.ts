import type { HumanInputRequest } from '../model.js';

/** The name of the message that announces an elicitation (instead of `human_input_needed`). */
export const ELICITATION_MESSAGE = 'elicitation_request';

/**
 * A question as another agent framework puts it (MCP-style elicitation: a message and a JSON Schema of
 * the answer, the id under `requestId`), for the `unreadable_question` scenario. A client that only knows
 * `human_input_needed` can't read it as a question, yet the id is there for whoever looks at the raw data.
 */
export function elicitationOf(request: HumanInputRequest): Record<string, unknown> {
  return {
    requestId: request.inputId,
    message: request.prompt,
    requestedSchema: {
      type: 'object',
      properties: { answer: { type: 'string', description: request.prompt } },
      required: ['answer'],
    },
  };
}
