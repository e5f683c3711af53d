// Lays out the service's package in a folder, as an operator installs it: the compiled service
// and contract (build/, from `npm run build`), the checkout and dashboard it serves (dist/), the
// hosted pages' assets, the service workspace's own package.json (server/package.json: its
// start script, bin, engines and dependencies; not its devDependencies), and a package-lock.json
// DERIVED from the repository's one lock: the closure of those dependencies, walked through the
// root lock's `packages` entries, each entry as the root lock has it. No second lock is kept by
// hand, so the shipped service runs on exactly the versions the repository is tested with.
// Then, in that folder: `npm ci --omit=dev && npm start`.
//   node server/assemble.mjs <folder>
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const workspace = relative(root, here); // 'server': where the root lock keeps the service package
const out = process.argv[2];
if (!out) {
  console.error('usage: node server/assemble.mjs <folder>');
  process.exit(2);
}
if (existsSync(out) && readdirSync(out).length > 0) {
  console.error(`assemble: ${out} is not empty; give a new or empty folder`);
  process.exit(2);
}
for (const needed of ['build/server/main.js', 'dist/checkout.js', 'dist/dashboard/dashboard.js']) {
  if (!existsSync(join(root, needed))) {
    console.error(`assemble: ${needed} is missing: run npm run build first`);
    process.exit(1);
  }
}

const readJson = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const service = readJson(join(workspace, 'package.json'));
const rootLock = readJson('package-lock.json');

// The manifest an operator gets: the workspace's, without what only the repository needs.
const manifest = {};
for (const key of ['name', 'version', 'private', 'description', 'license', 'type', 'engines', 'bin', 'scripts', 'dependencies', 'optionalDependencies']) {
  if (service[key] !== undefined) manifest[key] = key === 'scripts' ? { start: service.scripts.start } : service[key];
}

/** The lock of `manifest`: its dependencies' closure, resolved as Node resolves them in the root's tree. */
function deriveLock() {
  const entries = rootLock.packages;
  // Node's lookup from the package at `from`: its own node_modules, then each folder above.
  const find = (from, name) => {
    for (let dir = from; ; ) {
      const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (entries[candidate]) return candidate;
      if (dir === '') return undefined;
      const up = dir.lastIndexOf('/node_modules/');
      dir = up >= 0 ? dir.slice(0, up) : '';
    }
  };
  // What npm installs for a package: its dependencies and non-optional peers (required), and
  // its optionalDependencies (installed where the platform allows). Optional peers are not
  // installed for it, so they are not followed (viem's optional typescript stays out).
  const edges = (path, entry) => {
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    return [
      ...Object.keys(entry.dependencies ?? {}).map((name) => ({ name, optional: false })),
      ...Object.keys(entry.peerDependencies ?? {})
        .filter((name) => !optionalPeers[name]?.optional)
        .map((name) => ({ name, optional: false })),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
    ].map((edge) => ({ ...edge, from: path }));
  };
  const walk = (followOptional) => {
    const reached = new Set();
    const queue = edges(workspace, { dependencies: manifest.dependencies, optionalDependencies: manifest.optionalDependencies });
    while (queue.length > 0) {
      const edge = queue.shift();
      if (edge.optional && !followOptional) continue;
      const path = find(edge.from, edge.name);
      if (!path) {
        if (edge.optional) continue;
        throw new Error(`assemble: ${edge.name} (needed by ${edge.from || 'the root'}) is not in package-lock.json: run npm install`);
      }
      if (entries[path].link) throw new Error(`assemble: ${path} is a workspace link; the service's package cannot carry another workspace as a dependency`);
      if (reached.has(path)) continue;
      reached.add(path);
      queue.push(...edges(path, entries[path]));
    }
    return reached;
  };
  const required = walk(false);
  const all = walk(true);
  const packages = {
    '': {
      name: manifest.name,
      version: manifest.version,
      license: manifest.license,
      dependencies: manifest.dependencies,
      optionalDependencies: manifest.optionalDependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  // In the root's tree the workspace's own node_modules (server/node_modules/x) shadows the
  // root's; in the package it is the root's. Two of one name would need nesting: refuse.
  const placed = [...all].map((path) => [path.startsWith(`${workspace}/`) ? path.slice(workspace.length + 1) : path, path]);
  placed.sort(([a], [b]) => a.localeCompare(b, 'en'));
  for (const [place, path] of placed) {
    if (packages[place]) throw new Error(`assemble: ${place} is needed in two versions (the root's and ${workspace}'s); nest it or align the versions`);
    const { dev, devOptional, optional, peer, ...entry } = entries[path];
    packages[place] = required.has(path) ? entry : { ...entry, optional: true };
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}
const lock = deriveLock();

mkdirSync(out, { recursive: true });
/** Copies `from` (relative to the repository) to `to` (relative to the package), keeping what `keep` accepts. */
function copy(from, to, keep) {
  cpSync(join(root, from), join(out, to), {
    recursive: true,
    filter: (path) => statSync(path).isDirectory() || keep(relative(join(root, from), path)),
  });
}
const runtimeJs = (path) => path.endsWith('.js') && !path.startsWith('testing') && !path.includes('.test.');
copy('build/server', 'server', runtimeJs);
copy('build/contract', 'contract', runtimeJs);
copy('build/contracts/artifacts.generated.js', 'contracts/artifacts.generated.js', () => true);
copy('server/hosted/assets', 'server/hosted/assets', () => true);
copy('dist', 'dist', (path) => !path.endsWith('.map') && !path.endsWith('.d.ts') && path !== 'package.json');
writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(join(out, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
console.log(`assemble: the service's package is in ${out}; there: npm ci --omit=dev && npm start`);
