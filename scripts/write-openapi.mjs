// Writes docs/openapi.json: the emulator's OpenAPI description of the contract, as GET /openapi.json serves
// it, laid out as Biome formats JSON (so `npm run lint` passes). Run after `npm run build`;
// packages/emulator/test/openapi-file.test.ts fails while the file differs from what the emulator generates.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../packages/emulator/dist/index.js';

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
execFileSync('npx', ['biome', 'format', '--write', target], { stdio: 'ignore' });
console.log(`wrote ${target}`);
