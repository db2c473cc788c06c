// `node --import ./node20.mjs`: lets @modelcontextprotocol/conformance load on Node 20 (see node20-fs.mjs).
import { register } from 'node:module';

register('./node20-hooks.mjs', import.meta.url);
