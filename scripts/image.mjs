// `npm run image`: builds the bot's image from the Containerfile with podman (here, from the Debian base
// made from Debian's packages, with --pull=never; PODMAN_PULL=1 pulls it instead) and prints its size,
// failing above the budget. IMAGE_NAME names the image: by default the name the manifests in deploy/
// use, `localhost/agent-sessions-slack-bot:<the bot's version>`.
//
// `npm run image -- --push REPOSITORY` then pushes it as REPOSITORY:<version> and prints its digest as the
// kustomize `images:` entry that pins a cluster to exactly this image (a digest exists only once pushed:
// the registry's manifest is what it names).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEBIAN_IMAGE, ensureDebianBase, podman, RUN_FLAGS } from './podman.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The bot's version, which tags its image. */
export const VERSION = JSON.parse(readFileSync(`${root}/packages/slack-bot/package.json`, 'utf8')).version;
/** The image's name in the manifests (deploy/bot/deployment.yaml), which kustomize `images:` entries match. */
export const MANIFEST_IMAGE = 'localhost/agent-sessions-slack-bot';
export const IMAGE_NAME = process.env.IMAGE_NAME ?? `${MANIFEST_IMAGE}:${VERSION}`;
/** The image's budget, in MB of 10^6 bytes as podman reports them. */
export const IMAGE_BUDGET_MB = 250;

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
      `VERSION=${VERSION}`,
      // The base as podman.mjs has it: Debian's slim image by tag, or by digest when DEBIAN_IMAGE pins one.
      '--build-arg',
      `DEBIAN_IMAGE=${DEBIAN_IMAGE}`,
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

/**
 * Pushes `name` to `destination` (any of podman's: `docker://registry/repo:tag`, `oci:/folder:tag`…) and
 * returns the digest of the manifest written there, as podman reports it: the one a pull by digest asks for.
 */
export function pushImage(destination, name = IMAGE_NAME) {
  const dir = mkdtempSync(join(tmpdir(), 'image-push-'));
  try {
    const digestFile = join(dir, 'digest');
    podman(['push', '--digestfile', digestFile, name, destination], { inherit: true });
    const digest = readFileSync(digestFile, 'utf8').trim();
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`podman push gave no digest: "${digest}"`);
    return digest;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The kustomize `images:` entry that points the manifests' image at `repository`, pinned to `digest`. */
export const imagesEntry = (repository, digest) =>
  ['images:', `  - name: ${MANIFEST_IMAGE}`, `    newName: ${repository}`, `    digest: ${digest}`].join(
    '\n',
  );

function main() {
  const pushAt = process.argv.indexOf('--push');
  const repository = pushAt === -1 ? undefined : process.argv[pushAt + 1];
  if (pushAt !== -1 && !/^[a-z0-9][\w.:/-]*$/.test(repository ?? '')) {
    process.stderr.write(
      '--push takes the repository to push to, like registry.example.com/team/agent-sessions-slack-bot\n',
    );
    process.exit(2);
  }
  const sizeMb = buildImage();
  const verdict = sizeMb <= IMAGE_BUDGET_MB ? 'within' : 'OVER';
  process.stdout.write(
    `${IMAGE_NAME}: ${sizeMb.toFixed(1)} MB (${verdict} the ${IMAGE_BUDGET_MB} MB budget)\n`,
  );
  if (sizeMb > IMAGE_BUDGET_MB) process.exit(1);
  if (repository === undefined) return;
  const digest = pushImage(`docker://${repository}:${VERSION}`);
  process.stdout.write(
    `Pushed ${repository}:${VERSION}, digest ${digest}. Pin it in your overlay's kustomization.yaml:\n${imagesEntry(repository, digest)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
