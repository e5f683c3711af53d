// Runs npm scripts side by side and fails when any of them fails: `npm test` checks format and
// lint rules and type-checks while the unit tests run (they keep about 1.7 of CI's two cores
// busy, waiting on anvil, PostgreSQL and spawned services; see docs/performance.md). The first
// script's output is shown as it comes; each other's is held and shown whole when it ends, so
// their lines never interleave. Hand-written rather than a dependency: it is these forty lines.
//   node .ci/together.mjs test:unit lint typecheck
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node .ci/together.mjs <npm script> [<npm script> ...]');
  process.exit(2);
}
const children = names.map((name, index) => {
  const child = spawn('npm', ['run', name], { stdio: index === 0 ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  const held = [];
  if (index > 0) {
    child.stdout.on('data', (chunk) => held.push(chunk));
    child.stderr.on('data', (chunk) => held.push(chunk));
  }
  return { name, child, held };
});
const codes = await Promise.all(
  children.map(
    ({ name, child, held }) =>
      new Promise((resolve) =>
        child.on('close', (code, signal) => {
          if (held.length > 0) {
            process.stdout.write(`\ntogether: the output of npm run ${name}:\n`);
            process.stdout.write(Buffer.concat(held));
          }
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
