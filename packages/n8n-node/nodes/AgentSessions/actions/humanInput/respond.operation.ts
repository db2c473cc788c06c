import {
	type AnswerInput,
	checkId,
	describeProblems,
	type HumanInputRequest,
	type HumanInputResponseRequest,
	validateAnswer,
} from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { fromFormResponse, issuesByLabel } from '../../helpers/forms';
import { fail, failOnProblems, jsonObject, requiredText, sessionId } from '../../helpers/parameters';
import { asJson, pendingRequest } from '../../helpers/sessions';
import { sessionsApi } from '../../transport';
import { sessionIdProperty } from '../common.descriptions';

const onAnswerType = (...answerType: string[]) => ({ show: { answerType } });

const properties: INodeProperties[] = [
	sessionIdProperty,
	{
		displayName: 'Input ID',
		name: 'inputId',
		type: 'string',
		default: '',
		description: 'The question to answer; empty answers the one the session waits on now',
	},
	{
		displayName: 'Answer Type',
		name: 'answerType',
		type: 'options',
		options: [
			{
				name: 'Answers',
				value: 'answers',
				description: 'One answer per question, as JSON',
			},
			{
				name: 'Approval',
				value: 'approval',
				description: 'Approve or reject, with an optional reason',
			},
			{
				name: 'Choice',
				value: 'choice',
				description: 'One option ID',
			},
			{
				name: 'Choices',
				value: 'choices',
				description: 'Several option IDs',
			},
			{
				name: 'Free Text',
				value: 'freeText',
			},
			{
				name: 'From Form Response',
				value: 'formResponse',
				description:
					"The item an n8n Form, Wait (on form submission) or Send-and-Wait node returned for the question's form fields (request.formFields)",
			},
		],
		default: 'approval',
	},
	{
		displayName: 'Approved',
		name: 'approved',
		type: 'boolean',
		default: true,
		description: 'Whether the agent may go ahead',
		displayOptions: onAnswerType('approval'),
	},
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		description: 'Why, sent to the agent as free text',
		displayOptions: onAnswerType('approval'),
	},
	{
		displayName: 'Choice ID',
		name: 'choiceId',
		type: 'string',
		default: '',
		required: true,
		displayOptions: onAnswerType('choice'),
	},
	{
		displayName: 'Choice IDs',
		name: 'choiceIds',
		type: 'string',
		default: '',
		required: true,
		description: 'Comma-separated option IDs',
		displayOptions: onAnswerType('choices'),
	},
	{
		displayName: 'Text',
		name: 'freeText',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		displayOptions: onAnswerType('freeText'),
	},
	{
		displayName: 'Answers (JSON)',
		name: 'answers',
		type: 'json',
		default: '{}',
		required: true,
		description: 'An object from question ID to a text, an option ID or an array of option IDs',
		displayOptions: onAnswerType('answers'),
	},
	{
		displayName: 'Form Response',
		name: 'formResponse',
		type: 'json',
		default: '={{ $json }}',
		required: true,
		description:
			'The form\'s reply: field label → value (labels of options are mapped back to option IDs). Send-and-Wait replies under "data" are read too.',
		displayOptions: onAnswerType('formResponse'),
	},
];

const displayOptions = { show: { resource: ['humanInput'], operation: ['respond'] } };

export const description = updateDisplayOptions(displayOptions, properties);

function answerInput(ctx: IExecuteFunctions, i: number, type: string): AnswerInput {
	switch (type) {
		case 'approval': {
			const reason = String(ctx.getNodeParameter('reason', i, '') ?? '');
			return { approved: ctx.getNodeParameter('approved', i, true) as boolean, ...(reason.trim() ? { reason } : {}) };
		}
		case 'choice':
			return { choiceId: requiredText(ctx, 'choiceId', 'Choice ID', i) };
		case 'choices':
			return {
				choiceIds: requiredText(ctx, 'choiceIds', 'Choice IDs', i)
					.split(',')
					.map((s) => s.trim())
					.filter(Boolean),
			};
		case 'freeText': {
			// Sent as typed; only an empty one is refused.
			const text = String(ctx.getNodeParameter('freeText', i, '') ?? '');
			if (text.trim() === '') fail(ctx, i, 'Parameter "Text" is required');
			return { freeText: text };
		}
		default:
			return { answers: jsonObject(ctx, ctx.getNodeParameter('answers', i, '{}'), 'Answers (JSON)', i) };
	}
}

/** A form's reply mapped back to the question it asked; fails naming the form field, nothing sent. */
function formAnswer(ctx: IExecuteFunctions, i: number, request: HumanInputRequest): AnswerInput {
	const raw = ctx.getNodeParameter('formResponse', i, {});
	const response = typeof raw === 'string' ? jsonObject(ctx, raw, 'Form Response', i) : raw;
	const mapped = fromFormResponse(request, response);
	if (!mapped.ok) {
		fail(ctx, i, `The form response does not answer the question "${request.prompt}": ${describeProblems(mapped.issues)}`);
	}
	return mapped.input;
}

export async function execute(this: IExecuteFunctions, i: number): Promise<IDataObject> {
	const id = sessionId(this, i);
	const type = this.getNodeParameter('answerType', i) as string;
	// Parameters are read before any request: a bad one fails the step with nothing sent.
	const direct = type === 'formResponse' ? undefined : answerInput(this, i, type);
	const givenInputId = this.getNodeParameter('inputId', i, '') as string;
	const inputIdGiven = givenInputId.trim() !== '';
	if (inputIdGiven) failOnProblems(this, i, checkId(givenInputId, 'inputId'), { inputId: 'Input ID' });
	const sessions = await sessionsApi(this);
	const session = await sessions.get(id);
	const request = await pendingRequest(sessions, session, this.getExecutionCancelSignal());
	if (!request && !inputIdGiven) {
		fail(
			this,
			i,
			`Session ${id} is not waiting on a question (status: ${session.status}); set "Input ID" to answer a specific one`,
		);
	}
	const inputId = inputIdGiven ? givenInputId : (request as HumanInputRequest).inputId;
	const question = request && request.inputId === inputId ? request : undefined;
	let body: HumanInputResponseRequest;
	if (question) {
		const input = direct ?? formAnswer(this, i, question);
		// Checked against the question before sending (core's rules): the service never sees an answer we
		// know is wrong.
		const checked = validateAnswer(question, input);
		if (!checked.ok) {
			const issues = direct ? checked.issues : issuesByLabel(question, checked.issues);
			fail(this, i, `The answer does not fit the question "${question.prompt}": ${describeProblems(issues)}`);
		}
		body = checked.answer;
	} else if (direct) {
		// A question we can't read (not the pending one): sent as given; core checks its types.
		const { reason, ...rest } = direct;
		body = { ...rest, ...(reason ? { freeText: reason } : {}) } as HumanInputResponseRequest;
	} else {
		fail(
			this,
			i,
			`A form response can only answer the question the session waits on now (${request ? `input ${request.inputId}` : 'none'}), not input ${inputId}`,
		);
	}
	const ack = await sessions.respond(id, inputId, body);
	return {
		sessionId: id,
		inputId,
		answer: asJson(body),
		...(question ? { question: asJson(question) } : {}),
		answeredAt: new Date().toISOString(),
		...asJson(ack),
	};
}
