import { checkId, type InputProblem } from '@agent-sessions/core/pure-without-zod';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** A bad parameter: the step fails naming it, before any request. */
export function fail(ctx: IExecuteFunctions, itemIndex: number, message: string): never {
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex });
}

/** A required text parameter, trimmed (ids and goals; free text people type is never read through this). */
export function requiredText(ctx: IExecuteFunctions, name: string, label: string, itemIndex: number): string {
	const value = String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
	if (value === '') fail(ctx, itemIndex, `Parameter "${label}" is required`);
	return value;
}

/** A JSON parameter that must hold an object: n8n gives it as text (typed) or as an object (an expression). */
export function jsonObject(ctx: IExecuteFunctions, raw: unknown, label: string, itemIndex: number): IDataObject {
	let value = raw;
	if (typeof raw === 'string') {
		if (raw.trim() === '') return {};
		try {
			value = JSON.parse(raw);
		} catch (error) {
			fail(ctx, itemIndex, `Parameter "${label}" is not valid JSON: ${(error as Error).message}`);
		}
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		fail(ctx, itemIndex, `Parameter "${label}" must be a JSON object`);
	}
	return value as IDataObject;
}

export function positive(ctx: IExecuteFunctions, value: unknown, label: string, itemIndex: number): number {
	const n = Number(value);
	if (!Number.isFinite(n) || n <= 0) {
		fail(ctx, itemIndex, `Parameter "${label}" must be a number above 0 (got ${String(value)})`);
	}
	return n;
}

/**
 * Core's friendly checks (checkStartInput, checkBudget, checkRedirect, checkId) name fields as the
 * contract does; the step fails naming them as the node's parameters, with core's words.
 */
export function failOnProblems(
	ctx: IExecuteFunctions,
	itemIndex: number,
	problems: InputProblem[],
	labels: Record<string, string>,
): void {
	if (problems.length === 0) return;
	fail(
		ctx,
		itemIndex,
		problems.map((p) => `Parameter "${labels[p.field] ?? p.field}": ${p.message}`).join('; '),
	);
}

/** The Session ID parameter, checked as people paste ids (core's checkId), sent as given. */
export function sessionId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('sessionId', itemIndex, '') as string;
	failOnProblems(ctx, itemIndex, checkId(value, 'sessionId'), { sessionId: 'Session ID' });
	return value;
}
