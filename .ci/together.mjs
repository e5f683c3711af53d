// Runs npm scripts side by side and fails when any of them fails: `npm test` checks format and
// lint rules and type-checks while it builds (each mostly one core; on CI's two cores that saved
// ~30 s of the run, see docs/performance.md; the Biome check adds ~10 s of one core).
// Hand-written rather than a dependency: it is these twenty lines.
//   node .ci/together.mjs lint typecheck build
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node .ci/together.mjs <npm script> [<npm script> ...]');
  process.exit(2);
}
const children = names.map((name) => ({ name, child: spawn('npm', ['run', name], { stdio: 'inherit' }) }));
const codes = await Promise.all(
  children.map(
    ({ name, child }) =>
      new Promise((resolve) =>
        child.on('close', (code, signal) => {
          if (code !== 0) {
            console.error(`together: npm run ${name} failed (${signal ?? code})`);
            for (const other of children) if (other.child.exitCode === null) other.child.kill('SIGTERM');
          }
          resolve(code ?? 1);
        }),
      ),
  ),
);
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
