import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { SourceMapConsumer } from 'source-map-js';
const code = readFileSync('dist/checkout.js', 'utf8');
const map = new SourceMapConsumer(JSON.parse(readFileSync('dist/checkout.js.map', 'utf8')));
const lines = code.split('\n');
const chunks = {};
for (let l = 0; l < lines.length; l++) {
  const line = lines[l];
  let prev = null, prevCol = 0;
  for (let c = 0; c <= line.length; c++) {
    // sample per column is slow; use eachMapping instead
  }
}
const byFile = {};
const mappings = [];
map.eachMapping((m) => mappings.push(m));
mappings.sort((a, b) => a.generatedLine - b.generatedLine || a.generatedColumn - b.generatedColumn);
for (let i = 0; i < mappings.length; i++) {
  const m = mappings[i], n = mappings[i + 1];
  const line = lines[m.generatedLine - 1];
  const end = n && n.generatedLine === m.generatedLine ? n.generatedColumn : line.length;
  let src = m.source || '?';
  src = src.replace(/.*node_modules\//, 'nm:').replace(/^nm:(@[^/]+\/[^/]+|[^/]+).*/, 'nm:$1');
  if (!process.argv[2]) {} else if (!src.startsWith('nm:')) src = src.replace(/.*\/src\//, 'src/');
  (byFile[src] ??= []).push(line.slice(m.generatedColumn, end));
}
const rows = Object.entries(byFile).map(([f, parts]) => [f, parts.join('').length, gzipSync(parts.join(''), { level: 9 }).length]);
rows.sort((a, b) => b[1] - a[1]);
for (const r of rows) console.log(r[0].padEnd(50), String(r[1]).padStart(7), String(r[2]).padStart(7));
console.log('total', code.length, gzipSync(code, { level: 9 }).length);
