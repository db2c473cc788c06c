export {
  type AnswerInput,
  type AnswerIssue,
  type AnswerValidation,
  buildAnswer,
  describeAnswer,
  HumanInputAnswerError,
  MAX_FREE_TEXT_LENGTH,
  validateAnswer,
} from './answer.js';
export {
  DEFAULT_PROMPT,
  HUMAN_INPUT_EVENT,
  type HumanInputParseResult,
  type HumanInputSource,
  normalizeHumanInputRequest,
  parseHumanInput,
  parseHumanInputDetailed,
} from './parse.js';
export * from './types.js';
