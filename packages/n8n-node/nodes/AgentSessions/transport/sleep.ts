import type { SleepFunction } from '@agent-sessions/core/pure-without-zod';
import * as workflow from 'n8n-workflow';
import { ManualExecutionCancelledError, sleep } from 'n8n-workflow';

// An abortable sleep from n8n-workflow, as nodes may not use timers of their own. The n8n-workflow of n8n
// 2.8.4 exports `sleepWithAbort`; that of n8n 2.41.3 exports only `sleep`. There the wait races `sleep`
// against the execution's cancel signal: a stopped execution stops the wait at once, with the error
// `sleepWithAbort` throws (the timer itself ends on its own, at most one poll interval later).
const n8nSleepWithAbort = (workflow as { sleepWithAbort?: SleepFunction }).sleepWithAbort;

/** `sleep` that an aborted signal ends at once (exported for its test). */
export async function sleepRacingAbort(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal === undefined) return await sleep(ms);
	if (signal.aborted) throw new ManualExecutionCancelledError('');
	let onAbort = (): void => undefined;
	const aborted = new Promise<never>((_resolve, reject) => {
		onAbort = () => reject(new ManualExecutionCancelledError(''));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

export const sleepWithAbort: SleepFunction = n8nSleepWithAbort ?? sleepRacingAbort;
