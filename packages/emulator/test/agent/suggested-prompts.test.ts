import { describe, expect, it } from 'vitest';
import { scenarioFor } from '../../src/agent/scenarios.js';
import { scenarioPrompts } from '../../src/agent/suggested-prompts.js';

describe('scenario prompts (the Messages tab’s suggestions under npm start)', () => {
  it('four prompts, each starting the scenario it names', () => {
    const prompts = scenarioPrompts();
    expect(prompts).toHaveLength(4);
    expect(prompts.map((p) => scenarioFor(p.message, null))).toEqual([
      'approval',
      'single_select',
      'free_text',
      'long',
    ]);
    for (const p of prompts) expect(p.title.length).toBeGreaterThan(0);
  });
});
