// Compares two conformance reports (results.mjs --json) of one server,
// reached directly (A) and through a gateway (B): every check that fails
// through the gateway must fail directly too. Checks that fail only
// directly are listed (the gateway's own front passes them: its DNS
// rebinding protection, say).
//   node no-worse.mjs A.json B.json
// Exit code 1 if a check fails only through the gateway.
import fs from 'node:fs';

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node no-worse.mjs DIRECT.json GATEWAY.json');
  process.exit(2);
}
const failing = (file) => new Set(JSON.parse(fs.readFileSync(file, 'utf8')).unexpected.map((p) => `${p.scenario}:${p.check}`));
const direct = failing(a);
const via = failing(b);
const worse = [...via].filter((k) => !direct.has(k)).sort();
const better = [...direct].filter((k) => !via.has(k)).sort();
for (const k of better) console.log(`  fails directly, passes through the gateway: ${k}`);
for (const k of worse) console.log(`  FAILS ONLY THROUGH THE GATEWAY: ${k}`);
console.log(`${direct.size} checks fail directly, ${via.size} through the gateway: ${worse.length ? 'NOT OK' : 'no worse'}`);
process.exitCode = worse.length ? 1 : 0;
