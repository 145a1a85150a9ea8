// Tests for conformance.sh (pinned conformance CLI, node 22, loopback preload) and
// for node.sh, end to end with results.mjs.
//   node --test test/conformance.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INTEROP, run, startServer } from './helpers.mjs';

const CONFORMANCE = path.join(INTEROP, 'conformance.sh');
const dirs = [];
const tmp = () => dirs[dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'interop-conf-'))) - 1];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test('node.sh runs the pinned node 22', async () => {
  const r = await run(path.join(INTEROP, 'node.sh'), ['--version']);
  assert.equal(r.stdout.trim(), 'v22.23.3');
});

test('conformance.sh --version and list --server', async () => {
  const v = await run(CONFORMANCE, ['--version']);
  assert.equal(v.stdout.trim(), '0.2.0-alpha.12');
  const r = await run(CONFORMANCE, ['list', '--server']);
  assert.equal(r.code, 0, r.stderr);
  for (const s of ['server-initialize', 'server-stateless', 'tools-call-with-progress', 'input-required-result-basic-elicitation']) {
    assert.match(r.stdout, new RegExp(`- ${s} \\[`));
  }
});

test('client mode: the harness mock listens on 127.0.0.1 only and a node client runs on node 22', async () => {
  const out = tmp();
  const r = await run(CONFORMANCE, ['client', '--command', 'node test/fixtures/conformance-client.mjs', '--scenario', 'tools_call', '-o', out]);
  const [dir] = fs.readdirSync(out);
  const stdout = fs.readFileSync(path.join(out, dir, 'stdout.txt'), 'utf8');
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\nclient stdout: ${stdout}`);
  assert.match(stdout, /node=v22\.23\.3 mock-listen=tcp4:0100007F/);
  const res = await run(path.join(INTEROP, 'node.sh'), [path.join(INTEROP, 'results.mjs'), '--json', out]);
  assert.equal(res.code, 0, res.stdout);
  assert.equal(JSON.parse(res.stdout).failed, 0);
});

test('server mode against the fixture server, summarised by results.mjs', async () => {
  const server = await startServer('http-server.mjs');
  try {
    const out = tmp();
    for (const scenario of ['ping', 'tools-list']) {
      const r = await run(CONFORMANCE, ['server', '--url', server.url, '--scenario', scenario, '-o', out]);
      assert.equal(r.code, 0, `${scenario}: ${r.stdout}\n${r.stderr}`);
    }
    const res = await run(path.join(INTEROP, 'node.sh'), [path.join(INTEROP, 'results.mjs'), '--json', '--strict', out]);
    assert.equal(res.code, 0, res.stdout);
    const report = JSON.parse(res.stdout);
    assert.deepEqual(report.dirs[0].runs.map((x) => [x.scenario, x.mode, x.failed]), [['ping', 'server', 0], ['tools-list', 'server', 0]]);
  } finally {
    server.stop();
  }
});
