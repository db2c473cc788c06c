// The agent's question as n8n form fields, and a submitted form back to the answer.
// Pure (no n8n calls): unit-tested directly, and bundled with core's pure modules.
// Both directions share one layout (the slots): the fields a question becomes and the reading back of a
// submitted form must agree label for label, so they stay side by side.
import type {
	AnswerInput,
	AnswerIssue,
	HumanInputOption,
	HumanInputQuestion,
	HumanInputRequest,
} from '@agent-sessions/core/pure-without-zod';

/**
 * One field in the shape n8n's Form node ("Define Form: Using JSON"), the Send-and-Wait "Custom Form"
 * and the Wait node's form fields accept (n8n-workflow's tryToParseJsonToFormFields allows only these
 * keys). No `fieldName`: from Form v2.4 on it would rename the output key, and the mapping back reads
 * the response by label, which every version and every Send-and-Wait node keeps.
 */
export interface FormField {
	fieldLabel: string;
	fieldType: 'dropdown' | 'checkbox' | 'textarea';
	requiredField: boolean;
	fieldOptions?: { values: Array<{ option: string }> };
	placeholder?: string;
	limitSelection?: 'range';
	minSelections?: number;
	maxSelections?: number;
}

const REASON_LABEL = 'Reason';
/** An approval asked in a form: a choice between these two labels. */
const DECISION = [
	{ id: 'approve', label: 'Approve' },
	{ id: 'reject', label: 'Reject' },
];

/** Where each field's value goes in the answer. */
type Target =
	| { kind: 'decision' }
	| { kind: 'reason' }
	| { kind: 'choice'; options: Array<{ id: string; label: string }> }
	| { kind: 'choices'; options: Array<{ id: string; label: string }> }
	| { kind: 'text' };

interface Slot {
	field: FormField;
	target: Target;
	/** The question's id inside a multi-question request. */
	questionId?: string;
	/** The field core's answer check names (choiceId, answers.<id>, ...), to name the form field instead. */
	answerField: string;
}

/**
 * Labels as the form will show them: n8n escapes `<` and `>` in JSON-defined forms and trims checkbox
 * values, so two labels that differ only there would collide. Made unique with the option id or a count.
 */
function uniqueLabels(options: HumanInputOption[]): Array<{ id: string; label: string }> {
	const seen = new Set<string>();
	return options.map((o) => {
		let label = o.label.trim() === '' ? o.id : o.label.trim();
		if (seen.has(normalize(label))) label = `${label} (${o.id})`;
		seen.add(normalize(label));
		return { id: o.id, label };
	});
}

/** How n8n may hand a label back: `&lt;`/`&gt;` from a JSON-defined form, trimmed by the checkbox script. */
function normalize(text: string): string {
	return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').trim();
}

function choiceField(
	label: string,
	options: Array<{ id: string; label: string }>,
	required: boolean,
	multi: boolean,
	min?: number,
	max?: number,
): FormField {
	const field: FormField = {
		fieldLabel: label,
		fieldType: multi ? 'checkbox' : 'dropdown',
		requiredField: required,
		fieldOptions: { values: options.map((o) => ({ option: o.label })) },
	};
	if (multi) {
		field.limitSelection = 'range';
		field.minSelections = min ?? (required ? 1 : 0);
		field.maxSelections = max ?? options.length;
	}
	return field;
}

function questionSlot(question: HumanInputQuestion, label: string): Slot {
	const answerField = `answers.${question.id}`;
	if (question.kind === 'free_text') {
		return {
			field: { fieldLabel: label, fieldType: 'textarea', requiredField: question.required },
			target: { kind: 'text' },
			questionId: question.id,
			answerField,
		};
	}
	// An approval inside a multi-question request is offered as a choice between approve and reject.
	const options = question.kind === 'approval' ? DECISION : uniqueLabels(question.options ?? []);
	const multi = question.kind === 'multi_select';
	return {
		field: choiceField(label, options, question.required, multi, question.minSelections, question.maxSelections),
		target: multi ? { kind: 'choices', options } : { kind: 'choice', options },
		questionId: question.id,
		answerField,
	};
}

/** The fields and where each goes; labels made unique (the form's reply is keyed by label). */
function slots(request: HumanInputRequest): Slot[] {
	const used = new Set<string>();
	const label = (wanted: string) => {
		const base = normalize(wanted) === '' ? 'Answer' : wanted.trim();
		let candidate = base;
		for (let n = 2; used.has(normalize(candidate)); n++) candidate = `${base} (${n})`;
		used.add(normalize(candidate));
		return candidate;
	};
	switch (request.kind) {
		case 'approval':
			return [
				{
					field: choiceField(label(request.prompt), DECISION, true, false),
					target: { kind: 'decision' },
					answerField: 'approved',
				},
				{
					field: {
						fieldLabel: label(REASON_LABEL),
						fieldType: 'textarea',
						requiredField: false,
						placeholder: 'Optional',
					},
					target: { kind: 'reason' },
					answerField: 'freeText',
				},
			];
		case 'single_select': {
			const options = uniqueLabels(request.options ?? []);
			return [
				{
					field: choiceField(label(request.prompt), options, true, false),
					target: { kind: 'choice', options },
					answerField: 'choiceId',
				},
			];
		}
		case 'multi_select': {
			const options = uniqueLabels(request.options ?? []);
			const min = request.minSelections ?? 1;
			return [
				{
					field: choiceField(label(request.prompt), options, min > 0, true, min, request.maxSelections),
					target: { kind: 'choices', options },
					answerField: 'choiceIds',
				},
			];
		}
		case 'free_text':
			return [
				{
					field: { fieldLabel: label(request.prompt), fieldType: 'textarea', requiredField: true },
					target: { kind: 'text' },
					answerField: 'freeText',
				},
			];
		case 'multi_question':
			return (request.questions ?? []).map((q) => questionSlot(q, label(q.prompt)));
	}
}

/** The question as n8n form fields (`request.formFields`). */
export function toFormFields(request: HumanInputRequest): FormField[] {
	return slots(request).map((s) => s.field);
}

export type FormMapping = { ok: true; input: AnswerInput } | { ok: false; issues: AnswerIssue[] };

type Response = Record<string, unknown>;

const isObject = (v: unknown): v is Response => typeof v === 'object' && v !== null && !Array.isArray(v);

function lookup(response: Response, label: string): { found: boolean; value: unknown } {
	if (Object.prototype.hasOwnProperty.call(response, label)) return { found: true, value: response[label] };
	const wanted = normalize(label);
	for (const [key, value] of Object.entries(response)) {
		if (normalize(key) === wanted) return { found: true, value };
	}
	return { found: false, value: undefined };
}

/**
 * The fields of a form's reply: the Form and Wait nodes return them at the top of the item, the
 * Send-and-Wait nodes under `data`.
 */
function fieldsOf(response: Response, all: Slot[]): Response {
	const atTop = all.some((s) => lookup(response, s.field.fieldLabel).found);
	if (!atTop && isObject(response.data)) return response.data;
	return response;
}

const empty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

function optionId(
	value: unknown,
	options: Array<{ id: string; label: string }>,
	field: string,
	issues: AnswerIssue[],
): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') {
		issues.push({ field, rule: 'type', message: 'Expected one option label' });
		return undefined;
	}
	const text = normalize(String(value));
	const match = options.find((o) => normalize(o.label) === text);
	if (match) return match.id;
	issues.push({
		field,
		rule: 'not_an_option',
		message: `"${String(value)}" is not one of the options (${options.map((o) => o.label).join(', ')})`,
	});
	return undefined;
}

/** A checkbox reply: an array of labels (n8n parses the form's JSON), or its JSON text, or one label. */
function labelList(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'string' && value.trim().startsWith('[')) {
		try {
			const parsed: unknown = JSON.parse(value);
			if (Array.isArray(parsed)) return parsed;
		} catch {
			// Not JSON: one label that happens to start with "[".
		}
	}
	return [value];
}

/**
 * A submitted form (field label → value, as n8n's Form, Wait and Send-and-Wait nodes return it) back to
 * the answer: labels to option ids. Labels that aren't options, and missing required fields, are issues
 * named by the form field's label; core's answer check then applies as to any other answer.
 */
export function fromFormResponse(request: HumanInputRequest, response: unknown): FormMapping {
	const all = slots(request);
	if (!isObject(response)) {
		return {
			ok: false,
			issues: [{ field: 'form response', rule: 'type', message: 'Expected the item a form returned (an object)' }],
		};
	}
	const fields = fieldsOf(response, all);
	const issues: AnswerIssue[] = [];
	const input: AnswerInput = {};
	const answers: Record<string, unknown> = {};
	for (const slot of all) {
		const name = `Field "${slot.field.fieldLabel}"`;
		const { found, value } = lookup(fields, slot.field.fieldLabel);
		if (!found || empty(value) || (Array.isArray(value) && value.length === 0)) {
			if (slot.field.requiredField) {
				issues.push({
					field: name,
					rule: 'required',
					message: found ? 'No answer given' : `The form response has no field "${slot.field.fieldLabel}"`,
				});
			}
			continue;
		}
		const target = slot.target;
		switch (target.kind) {
			case 'decision': {
				const id = optionId(value, DECISION, name, issues);
				if (id !== undefined) input.approved = id === 'approve';
				break;
			}
			case 'reason':
				// Sent as typed: the check below trims and bounds it, as for any answer.
				input.reason = String(value);
				break;
			case 'text': {
				const text = typeof value === 'string' ? value : String(value);
				if (slot.questionId !== undefined) answers[slot.questionId] = text;
				else input.freeText = text;
				break;
			}
			case 'choice': {
				const id = optionId(value, target.options, name, issues);
				if (id === undefined) break;
				if (slot.questionId !== undefined) answers[slot.questionId] = id;
				else input.choiceId = id;
				break;
			}
			case 'choices': {
				const ids: string[] = [];
				for (const label of labelList(value)) {
					const id = optionId(label, target.options, name, issues);
					if (id !== undefined) ids.push(id);
				}
				if (slot.questionId !== undefined) answers[slot.questionId] = ids;
				else input.choiceIds = ids;
				break;
			}
		}
	}
	if (request.kind === 'multi_question') input.answers = answers;
	return issues.length > 0 ? { ok: false, issues } : { ok: true, input };
}

/** Core's answer issues named by the form field the person filled in, not the answer body's field. */
export function issuesByLabel(request: HumanInputRequest, issues: AnswerIssue[]): AnswerIssue[] {
	const all = slots(request);
	return issues.map((issue) => {
		const slot = all.find((s) => s.answerField === issue.field);
		return slot ? { ...issue, field: `Field "${slot.field.fieldLabel}"` } : issue;
	});
}
