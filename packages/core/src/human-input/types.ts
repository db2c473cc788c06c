export type HumanInputKind = 'approval' | 'single_select' | 'multi_select' | 'free_text' | 'multi_question';

export const HUMAN_INPUT_KINDS: readonly HumanInputKind[] = [
  'approval',
  'single_select',
  'multi_select',
  'free_text',
  'multi_question',
];

export interface HumanInputOption {
  id: string;
  label: string;
  description?: string;
}

export interface HumanInputQuestion {
  id: string;
  prompt: string;
  kind: Exclude<HumanInputKind, 'multi_question'>;
  required: boolean;
  options?: HumanInputOption[];
  minSelections?: number;
  maxSelections?: number;
}

/** One normalized question from the agent to a person, whatever wire shape it came in. */
export interface HumanInputRequest {
  inputId: string;
  kind: HumanInputKind;
  prompt: string;
  options?: HumanInputOption[];
  questions?: HumanInputQuestion[];
  minSelections?: number;
  maxSelections?: number;
  /** The request as it came, for anything the normalized form doesn't carry. */
  raw: unknown;
}

/** The body of `POST /v1/sessions/{id}/human-input/{inputId}`. */
export interface HumanInputAnswer {
  approved?: boolean;
  choiceId?: string;
  choiceIds?: string[];
  freeText?: string;
  answers?: Record<string, string | string[]>;
}
