// Lays out the service's package in a folder, as an operator installs it: the compiled service
// and contract (build/, from `npm run build`), the checkout and dashboard it serves (dist/), the
// hosted pages' assets, and this folder's package.json and package-lock.json, which name only
// the libraries the service runs on. Then, in that folder: `npm ci --omit=dev && npm start`.
//   node apps/service/assemble.mjs <folder>
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const out = process.argv[2];
if (!out) {
  console.error('usage: node apps/service/assemble.mjs <folder>');
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
copy('apps/service/package.json', 'package.json', () => true);
copy('apps/service/package-lock.json', 'package-lock.json', () => true);
console.log(`assemble: the service's package is in ${out}; there: npm ci --omit=dev && npm start`);
