import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * An initialized, empty PGlite cluster made by `npm run build`, which the bot copies into an empty DATA_DIR
 * instead of running initdb in its own process: PGlite's initdb grows the WebAssembly heap to about 800 MB
 * and WebAssembly memory never shrinks. It sits in dist/ (from src/store and dist/store
 * alike, `../../dist`) so the published package ships it and git ignores it.
 */
export const PGLITE_TEMPLATE_DIR = fileURLToPath(new URL('../../dist/pglite-template/', import.meta.url));

/**
 * The same cluster as a tar file, which an in-memory store (no data directory: the tests) loads instead of
 * running initdb, which takes seconds and hundreds of megabytes each time.
 */
export const PGLITE_TEMPLATE_TAR = fileURLToPath(new URL('../../dist/pglite-template.tar', import.meta.url));

/** Beside the cluster's files: which PGlite made it; a template from another version is not used. */
const STAMP = 'PGLITE_TEMPLATE.json';

/** The installed @electric-sql/pglite's version (its data directory format follows it). */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Whether `dir` holds a complete template made by the installed PGlite (the tar file is made before it). */
export function isUsableTemplate(dir: string = PGLITE_TEMPLATE_DIR): boolean {
  try {
    const stamp = JSON.parse(readFileSync(join(dir, STAMP), 'utf8')) as { pglite?: unknown };
    return stamp.pglite === pgliteVersion() && existsSync(join(dir, 'PG_VERSION'));
  } catch {
    return false;
  }
}

/** The files of a cluster, without the stamp. */
export const isTemplateStamp = (name: string): boolean => name === STAMP;

/**
 * Makes the template (the build step): initdb in this process, then the stamp, written last so a build
 * killed half-way leaves no usable template. Does nothing when a usable one is there.
 */
export async function buildPgliteTemplate(
  dir: string = PGLITE_TEMPLATE_DIR,
  tar: string = PGLITE_TEMPLATE_TAR,
): Promise<'built' | 'kept'> {
  if (isUsableTemplate(dir) && existsSync(tar)) return 'kept';
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir);
  await db.exec('CHECKPOINT');
  writeFileSync(tar, new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer()));
  await db.close();
  writeFileSync(join(dir, STAMP), `${JSON.stringify({ pglite: pgliteVersion() })}\n`);
  return 'built';
}
