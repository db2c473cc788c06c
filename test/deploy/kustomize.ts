import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

// kustomize's build, for the fields the kustomizations in deploy/ use, read from the files: resources (files
// and folders), components, JSON 6902 patches aimed at a kind and name, labels (metadata only) and images.
// It runs where kubectl doesn't (Debian and the npm registry have no kustomize), so every test renders the
// overlays; where kubectl is installed, a test compares this with `kubectl kustomize` for each overlay. A
// field or patch operation it doesn't know fails the render rather than being skipped.

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML until a schema has checked them.
export type Manifest = Record<string, any>;

interface Patch {
  target: { kind: string; name: string };
  patch: string;
}
interface Image {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}
interface Labels {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}
export interface Kustomization {
  apiVersion: string;
  kind: 'Kustomization' | 'Component';
  resources?: string[];
  components?: string[];
  patches?: Patch[];
  labels?: Labels[];
  images?: Image[];
}

const FIELDS = new Set(['apiVersion', 'kind', 'resources', 'components', 'patches', 'labels', 'images']);
const API_VERSION = {
  Kustomization: 'kustomize.config.k8s.io/v1beta1',
  Component: 'kustomize.config.k8s.io/v1alpha1',
};

/** The kustomization.yaml of `dir`, refused when it uses a field this renderer doesn't apply. */
export function kustomizationAt(dir: string): Kustomization {
  const file = join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Kustomization;
  const unknown = Object.keys(kustomization).filter((field) => !FIELDS.has(field));
  if (unknown.length > 0)
    throw new Error(`${file}: fields this renderer doesn't apply: ${unknown.join(', ')}`);
  if (API_VERSION[kustomization.kind] !== kustomization.apiVersion)
    throw new Error(`${file}: ${kustomization.kind} must be ${API_VERSION[kustomization.kind]}`);
  return kustomization;
}

const documentsOf = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJSON() as Manifest);

/** What `kubectl kustomize dir` prints, as objects (in the order of the files, not kustomize's). */
export function render(dir: string): Manifest[] {
  const kustomization = kustomizationAt(dir);
  if (kustomization.kind !== 'Kustomization') throw new Error(`${dir} is a ${kustomization.kind}`);
  const manifests = (kustomization.resources ?? []).flatMap((resource) => {
    const path = join(dir, resource);
    return statSync(path).isDirectory() ? render(path) : documentsOf(path);
  });
  for (const component of kustomization.components ?? []) {
    const path = join(dir, component);
    const included = kustomizationAt(path);
    if (included.kind !== 'Component') throw new Error(`${path} is not a Component`);
    if (included.components) throw new Error(`${path}: components inside a component`);
    manifests.push(...(included.resources ?? []).flatMap((resource) => documentsOf(join(path, resource))));
    transform(manifests, included);
  }
  transform(manifests, kustomization);
  return manifests;
}

/** kustomize's order: patches, then labels, then images. */
function transform(manifests: Manifest[], kustomization: Kustomization): void {
  for (const { target, patch } of kustomization.patches ?? []) {
    const targets = manifests.filter((m) => m.kind === target.kind && m.metadata?.name === target.name);
    if (targets.length === 0) throw new Error(`no ${target.kind} ${target.name} to patch`);
    for (const manifest of targets)
      for (const op of parse(patch) as Operation[]) applyOperation(manifest, op);
  }
  for (const { pairs, includeSelectors, includeTemplates } of kustomization.labels ?? []) {
    if (includeSelectors || includeTemplates)
      throw new Error('labels on selectors and templates: not applied');
    for (const manifest of manifests) manifest.metadata.labels = { ...manifest.metadata.labels, ...pairs };
  }
  for (const image of kustomization.images ?? []) for (const manifest of manifests) retag(manifest, image);
}

interface Operation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** One JSON Patch (RFC 6902) operation: add, replace or remove. */
function applyOperation(manifest: Manifest, { op, path, value }: Operation): void {
  const keys = path
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  let parent: Manifest = manifest;
  for (const key of keys) {
    parent = parent[key];
    if (parent === undefined) throw new Error(`${op} ${path}: ${key} does not exist`);
  }
  if (last === undefined) throw new Error(`${op} ${path}: the whole document`);
  const exists = Array.isArray(parent) ? Number(last) < parent.length : last in parent;
  if (op !== 'add' && !exists) throw new Error(`${op} ${path}: nothing there`);
  if (op === 'remove') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (op === 'add' && Array.isArray(parent)) {
    parent.splice(last === '-' ? parent.length : Number(last), 0, value);
  } else if (op === 'add' || op === 'replace') {
    parent[last] = value;
  } else {
    throw new Error(`${op} ${path}: an operation this renderer doesn't apply`);
  }
}

/** An image reference's name, without its tag or digest. */
const imageName = (reference: string) => reference.replace(/@.*$/, '').replace(/:[^:/]*$/, '');

/** Points every container of `manifest` whose image has `image.name` at the new name, tag or digest. */
function retag(manifest: Manifest, image: Image): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object')
      for (const [key, value] of Object.entries(node as Manifest)) {
        if ((key === 'containers' || key === 'initContainers') && Array.isArray(value))
          for (const container of value as Manifest[])
            if (typeof container.image === 'string' && imageName(container.image) === image.name)
              container.image = newReference(container.image, image);
        visit(value);
      }
  };
  visit(manifest);
}

function newReference(reference: string, image: Image): string {
  const name = image.newName ?? image.name;
  if (image.digest) return `${name}@${image.digest}`;
  if (image.newTag) return `${name}:${image.newTag}`;
  return `${name}${reference.slice(imageName(reference).length)}`;
}
