import { describe, expect, it } from 'vitest';
import { WAIT_LIMITS, WaitSlots } from '../../../src/services/mcp/index.js';

describe('open wait_for_session calls, bounded', () => {
  it('per person: past the limit refused naming it; a call that returns frees its slot, once', () => {
    const slots = new WaitSlots({ perPerson: 2, perWorkspace: 10 });
    const first = slots.take('T1', 'U1');
    expect(slots.take('T1', 'U1').taken).toBe(true);
    expect(slots.take('T1', 'U1')).toEqual({
      taken: false,
      message: expect.stringMatching(/one person may \(2\)/),
    });
    // Someone else in the workspace, or the same user id in another workspace, is counted apart.
    expect(slots.take('T1', 'U2').taken).toBe(true);
    expect(slots.take('T2', 'U1').taken).toBe(true);
    if (!first.taken) throw new Error('the first wait was refused');
    first.release();
    first.release();
    expect(slots.take('T1', 'U1').taken).toBe(true);
    expect(slots.take('T1', 'U1').taken).toBe(false);
  });

  it('per workspace: all its people together; a batch takes a slot per call', () => {
    const slots = new WaitSlots({ perPerson: 5, perWorkspace: 3 });
    expect(slots.take('T1', 'U1', 2).taken).toBe(true);
    expect(slots.take('T1', 'U2', 2)).toEqual({
      taken: false,
      message: expect.stringMatching(/one workspace may \(3\)/),
    });
    expect(slots.take('T1', 'U2').taken).toBe(true);
    expect(slots.take('T2', 'U3').taken).toBe(true);
  });

  it('by default: 5 a person, 100 a workspace', () => {
    expect(WAIT_LIMITS).toEqual({ perPerson: 5, perWorkspace: 100 });
  });
});
