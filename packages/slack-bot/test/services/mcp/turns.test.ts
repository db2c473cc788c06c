import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnPacer } from '../../../src/services/mcp/turns.js';

describe('TurnPacer', () => {
  it('a caller alone goes on at once', () => {
    expect(new TurnPacer(4).turn()).toBeUndefined();
  });

  it('a burst goes through a few per turn of the event loop, in order', async () => {
    const pacer = new TurnPacer(4);
    const passed: number[] = [];
    for (let i = 0; i < 10; i++) {
      const waiting = pacer.turn();
      if (waiting) void waiting.then(() => passed.push(i));
      else passed.push(i);
    }
    expect(passed).toEqual([0, 1, 2, 3]);
    expect(pacer.waiting).toBe(6);
    await nextTurn();
    expect(passed).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await nextTurn();
    expect(passed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pacer.waiting).toBe(0);
  });
});
