import { describe, expect, it } from 'vitest';
import { MessageMarks } from '../../../src/services/following/message-marks.js';

describe('MessageMarks', () => {
  it('gives back the mark set for a session’s message; another session’s same key is its own', () => {
    const marks = new MessageMarks();
    marks.set('s1', 'm1', 7);
    marks.set('s2', 'm1', 9);
    expect(marks.get('s1', 'm1')).toBe(7);
    expect(marks.get('s2', 'm1')).toBe(9);
    expect(marks.get('s1', 'm2')).toBeUndefined();
    expect(marks.get('s1', undefined)).toBeUndefined();
  });

  it('keeps the 50,000 most recently set or read marks, all sessions together', () => {
    const marks = new MessageMarks();
    marks.set('s1', 'first', 1);
    marks.set('s1', 'read', 2);
    for (let i = 0; i < 49_998; i++) marks.set(`s${i % 100}`, `m${i}`, i);
    expect(marks.get('s1', 'read')).toBe(2); // read: now the most recently used
    marks.set('s2', 'one more', 3);
    expect(marks.get('s1', 'first')).toBeUndefined();
    marks.set('s2', 'and another', 4);
    expect(marks.get('s1', 'read')).toBe(2);
    expect(marks.get('s0', 'm0')).toBeUndefined();
  });
});
