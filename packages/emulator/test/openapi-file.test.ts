import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/openapi.js';

// docs/openapi.json is the machine-readable contract a reader of the repository finds without running
// anything. It must be what the emulator serves at GET /openapi.json, or it tells a newcomer something
// the code no longer does.
describe('docs/openapi.json', () => {
  it('is the document the emulator generates (regenerate: npm run build && node scripts/write-openapi.mjs)', () => {
    const committed: unknown = JSON.parse(
      readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(openApiDocument());
  });
});
