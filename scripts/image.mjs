// `npm run image`: builds the bot's image from the Containerfile with podman (here, from the Debian base
// made from Debian's packages, with --pull=never; PODMAN_PULL=1 pulls it instead) and prints its size,
// failing above the budget. IMAGE_NAME names the image (agent-sessions-slack-bot:dev by default).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureDebianBase, podman, RUN_FLAGS } from './podman.mjs';

export const IMAGE_NAME = process.env.IMAGE_NAME ?? 'localhost/agent-sessions-slack-bot:dev';
/** The image's budget, in MB of 10^6 bytes as podman reports them. */
export const IMAGE_BUDGET_MB = 250;
const root = fileURLToPath(new URL('..', import.meta.url));

const git = (...args) => {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

/**
 * The machine's CA bundle as the build secret `ca`, when Node here is told to trust extra CAs (an egress
 * proxy that re-signs TLS): the build's `npm ci` needs them too, and a secret never lands in a layer.
 */
function caSecret() {
  const bundle = process.env.NODE_EXTRA_CA_CERTS;
  return bundle && existsSync(bundle) ? ['--secret', `id=ca,src=${bundle}`] : [];
}

/** Builds the image; returns its size in MB. */
export function buildImage(name = IMAGE_NAME) {
  ensureDebianBase();
  const version = JSON.parse(readFileSync(`${root}/packages/slack-bot/package.json`, 'utf8')).version;
  podman(
    [
      'build',
      '--pull=never',
      // Docker's format keeps HEALTHCHECK (the OCI image format has no field for it).
      '--format',
      'docker',
      ...RUN_FLAGS,
      ...caSecret(),
      '--build-arg',
      `VERSION=${version}`,
      '--build-arg',
      `REVISION=${git('rev-parse', 'HEAD')}`,
      '--build-arg',
      // The commit's time, not the build's: the same commit builds the same image, from the cache.
      `CREATED=${git('log', '-1', '--format=%cI')}`,
      '-f',
      'Containerfile',
      '-t',
      name,
      root,
    ],
    { inherit: true },
  );
  return Number(podman(['image', 'inspect', '--format', '{{.Size}}', name]).stdout) / 1e6;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizeMb = buildImage();
  const verdict = sizeMb <= IMAGE_BUDGET_MB ? 'within' : 'OVER';
  process.stdout.write(
    `${IMAGE_NAME}: ${sizeMb.toFixed(1)} MB (${verdict} the ${IMAGE_BUDGET_MB} MB budget)\n`,
  );
  if (sizeMb > IMAGE_BUDGET_MB) process.exit(1);
}
