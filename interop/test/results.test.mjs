// Tests for results.mjs on a synthetic conformance output directory.
//   node --test test/results.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INTEROP, run } from './helpers.mjs';

const TS = '2026-01-02T03-04-05-678Z';
let out;
let dir;

function write(rel, checks) {
  fs.mkdirSync(path.join(out, rel), { recursive: true });
  if (checks) fs.writeFileSync(path.join(out, rel, 'checks.json'), JSON.stringify(checks));
}
const check = (id, status, errorMessage) => ({ id, name: id, description: id, status, timestamp: '', specReferences: [], errorMessage });

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interop-results-'));
  out = path.join(dir, 'out');
  write(`server-ping-${TS}`, [check('ping', 'SUCCESS'), check('wire-schema-valid', 'SUCCESS')]);
  write(`server-server-initialize-${TS}`, [check('server-initialize', 'SUCCESS'), check('server-info', 'INFO')]);
  write(`server-tools-call-sampling-${TS}`, [check('tools-call-sampling', 'FAILURE', 'no sampling')]);
  write(`server-server-stateless-${TS}`, [check('a', 'SUCCESS'), check('b', 'FAILURE', 'b broke'), check('c', 'WARNING', 'c meh'), check('d', 'SKIPPED')]);
  write(`server-tasks-lifecycle-${TS}`); // crashed: no checks.json
  write(`auth/metadata-default-${TS}`, [check('prm', 'SUCCESS')]);
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

const results = (args) => run(path.join(INTEROP, 'node.sh'), [path.join(INTEROP, 'results.mjs'), ...args]);
const yaml = (text) => {
  const f = path.join(dir, `ef-${Math.random()}.yaml`);
  fs.writeFileSync(f, text);
  return f;
};

test('table and totals; any failure fails', async () => {
  const r = await results([out]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /SCENARIO\s+PASSED\s+FAILED\s+WARNINGS\s+SKIPPED/);
  assert.match(r.stdout, /^server-stateless\s+1\s+1\s+1\s+1$/m);
  assert.match(r.stdout, /^server-initialize\s+1\s+0\s+0\s+0$/m); // one "server-" prefix stripped
  assert.match(r.stdout, /^auth\/metadata-default\s+1\s+0\s+0\s+0$/m);
  assert.match(r.stdout, /^TOTAL \(6 runs\)\s+5\s+3\s+1\s+1$/m);
  assert.match(r.stdout, /FAILURE tasks-lifecycle:scenario-crashed/);
});

test('--json totals and modes', async () => {
  const r = await results(['--json', out]);
  const j = JSON.parse(r.stdout);
  assert.deepEqual([j.ok, j.runs, j.passed, j.failed, j.warnings, j.skipped, j.info], [false, 6, 5, 3, 1, 1, 1]);
  const modes = Object.fromEntries(j.dirs[0].runs.map((x) => [x.scenario, x.mode]));
  assert.equal(modes['server-initialize'], 'server');
  assert.equal(modes['auth/metadata-default'], 'client');
  assert.deepEqual(j.unexpected.map((u) => `${u.scenario}:${u.check}`).sort(),
    ['server-stateless:b', 'tasks-lifecycle:scenario-crashed', 'tools-call-sampling:tools-call-sampling']);
});

test('expected failures excuse whole scenarios or single checks; stale entries are reported', async () => {
  const f = yaml(`
- scenario: tools-call-sampling
  reason: sampling not implemented
- scenario: server-stateless:b
  reason: b is known broken
- scenario: tasks-lifecycle
  reason: tasks not implemented
- scenario: ping
  reason: stale
- scenario: not-run
  reason: ignored
`);
  const r = await results(['--json', '--expected-failures', f, out]);
  const j = JSON.parse(r.stdout);
  assert.equal(r.code, 0, r.stdout);
  assert.equal(j.expected.length, 3);
  assert.deepEqual(j.stale.map((s) => s.scenario), ['ping']);
  assert.deepEqual(j.otherWarnings.map((w) => w.check), ['c']);

  const strict = await results(['--strict', '--expected-failures', f, out]);
  assert.equal(strict.code, 1);
  assert.match(strict.stdout, /UNEXPECTED failures\/warnings \(1\):\n {2}WARNING server-stateless:c: c meh/);
});

test('a per-check entry does not excuse other checks of the scenario', async () => {
  const f = yaml('- scenario: server-stateless:c\n  reason: warning is fine\n');
  const j = JSON.parse((await results(['--json', '--strict', '--expected-failures', f, out])).stdout);
  assert.ok(j.unexpected.some((u) => u.check === 'b'));
  assert.ok(!j.unexpected.some((u) => u.check === 'c'));
});

test('--requirements excuses not_scored scenarios of the frozen set', async () => {
  // tasks-lifecycle is not_scored (extension) in 2026-07-28
  const j = JSON.parse((await results(['--json', '--requirements', '2026-07-28', out])).stdout);
  assert.deepEqual(j.notScored.map((n) => [n.scenario, n.reason]), [['tasks-lifecycle', 'extension']]);
});

test('usage errors exit 2', async () => {
  assert.equal((await results([])).code, 2);
  assert.equal((await results([path.join(dir, 'missing')])).code, 2);
  assert.equal((await results(['--expected-failures', yaml('- scenario: ping\n'), out])).code, 2); // no reason
  assert.equal((await results(['--expected-failures', yaml('ping: x\n'), out])).code, 2); // not a list
  assert.equal((await results(['--requirements', '1999-01-01', out])).code, 2);
  fs.mkdirSync(path.join(dir, 'empty'), { recursive: true });
  assert.equal((await results([path.join(dir, 'empty')])).code, 2);
});
