import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { type FakeContext, fakeContext } from './fake-context';

export interface PollContextOptions {
  parameters: Record<string, unknown>;
  credentials: { baseUrl: string; apiKey: string };
  mode?: 'trigger' | 'manual';
  /** The node's static data: pass the same object to the next poll (n8n keeps it between polls and restarts). */
  staticData: IDataObject;
}

export type PollContext = IPollFunctions & Pick<FakeContext, 'requests'>;

/** An IPollFunctions with what the trigger uses: real HTTP (as fakeContext does), the mode and static data. */
export function pollContext(options: PollContextOptions): PollContext {
  const base = fakeContext({ items: [options.parameters], credentials: options.credentials });
  const context = Object.assign(Object.create(null) as Record<string, unknown>, base, {
    getNodeParameter: (name: string, fallback?: unknown) => base.getNodeParameter(name, 0, fallback),
    getMode: () => options.mode ?? 'trigger',
    getActivationMode: () => 'activate',
    getWorkflowStaticData: (type: string) => {
      if (type !== 'node') throw new Error(`unexpected static data type ${type}`);
      return options.staticData;
    },
  });
  return context as unknown as PollContext;
}
