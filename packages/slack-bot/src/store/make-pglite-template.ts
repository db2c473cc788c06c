// Build step (`npm run build`): the pre-initialized PGlite cluster the bot copies into an empty DATA_DIR.
import { buildPgliteTemplate, PGLITE_TEMPLATE_DIR } from './pglite-template.js';

if ((await buildPgliteTemplate()) === 'built') {
  process.stdout.write(`PGlite template cluster written to ${PGLITE_TEMPLATE_DIR}\n`);
}
