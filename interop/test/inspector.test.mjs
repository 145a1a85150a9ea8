// Tests for inspector.sh (inspector-cli 1.0.3 on node 22) against the fixture server.
//   node --test test/inspector.test.mjs
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES, INTEROP, run, startServer } from './helpers.mjs';

const INSPECTOR = path.join(INTEROP, 'inspector.sh');
const inspect = (args, opts) => run(INSPECTOR, args, opts);

async function ok(args, opts) {
  const r = await inspect(args, opts);
  assert.equal(r.code, 0, `inspector.sh ${args.join(' ')} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('stdio targets', { concurrency: true }, () => {
  test('options first, target after "--", relative paths from the caller cwd', async () => {
    const out = await ok(['--method', 'tools/list', '--', '../node.sh', 'fixtures/stdio-server.mjs'], { cwd: path.join(INTEROP, 'test') });
    assert.ok(out.tools.some((t) => t.name === 'echo'));
  });
  test('target first', async () => {
    const out = await ok(['./node.sh', 'test/fixtures/stdio-server.mjs', '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=hi']);
    assert.deepEqual(out.content, [{ type: 'text', text: 'hi' }]);
  });
  test('works from a cwd whose parent has no package.json (the CLI bug)', async () => {
    const out = await ok(['--method', 'resources/read', '--uri', 'test://static-text', '--',
      path.join(INTEROP, 'node.sh'), path.join(FIXTURES, 'stdio-server.mjs')], { cwd: os.tmpdir() });
    assert.equal(out.contents[0].uri, 'test://static-text');
  });
  test('prompts/get', async () => {
    const out = await ok(['--method', 'prompts/get', '--prompt-name', 'test_simple_prompt', '--', './node.sh', 'test/fixtures/stdio-server.mjs']);
    assert.equal(out.messages[0].role, 'user');
  });
  test('a JSON-RPC error exits 1', async () => {
    const r = await inspect(['--method', 'tools/call', '--tool-name', 'nope', '--', './node.sh', 'test/fixtures/stdio-server.mjs']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown tool nope/);
  });
});

describe('Streamable HTTP target', { concurrency: true }, () => {
  let server;
  before(async () => { server = await startServer('http-server.mjs'); });
  after(() => server.stop());
  test('tools/list', async () => {
    const out = await ok([server.url, '--method', 'tools/list']);
    assert.ok(out.tools.some((t) => t.name === 'echo'));
  });
  test('tools/call', async () => {
    const out = await ok([server.url, '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=over http']);
    assert.deepEqual(out.content, [{ type: 'text', text: 'over http' }]);
  });
});
