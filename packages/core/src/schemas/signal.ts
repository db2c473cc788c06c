import { z } from 'zod';

export type { SignalResponse } from './responses/index.js';

const optionalText = (field: string) => z.string({ error: `${field} must be a string` }).optional();
const newBudget = z
  .number({ error: 'newBudget must be a number' })
  .refine(Number.isFinite, 'newBudget must be a finite number')
  .optional();

/**
 * The spec's signal table lists `reason`, `message` and `newBudget` for every signal, so each type
 * takes all of them (a reason on a resume or a redirect goes through). The spec's only rule here is that
 * a redirect needs a message: a missing one is refused; a blank one is the caller's to refuse. Whether
 * `newBudget` exceeds the spend is the service's rule (it answers 400). Unknown keys pass through.
 */
const fields = { reason: optionalText('reason'), message: optionalText('message'), newBudget };

export const signalRequestSchema = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ type: z.literal('pause'), ...fields }),
    z.looseObject({ type: z.literal('resume'), ...fields }),
    z.looseObject({ type: z.literal('cancel'), ...fields }),
    z.looseObject({
      type: z.literal('redirect'),
      ...fields,
      message: z.string({ error: 'message is required for a redirect' }),
    }),
  ],
  { error: 'type must be one of pause, resume, cancel, redirect' },
);
interface SignalFields {
  reason?: string;
  message?: string;
  newBudget?: number;
}
export type SignalRequest =
  | ({ type: 'pause' | 'resume' | 'cancel' } & SignalFields)
  | ({ type: 'redirect'; message: string } & SignalFields);
