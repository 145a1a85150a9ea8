// Tests for loopback-preload.mjs: every listen() signature the conformance harness
// uses (and a few more) must bind 127.0.0.1 only, checked with address() and the
// kernel socket table, while explicit hosts and unix sockets stay untouched.
//   node --test test/loopback-preload.test.mjs
import '../loopback-preload.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INTEROP, run } from './helpers.mjs';

const LOOP4 = '0100007F'; // 127.0.0.1 in /proc/net/tcp (little-endian hex)

// Kernel LISTEN sockets on a port: ['v4:0100007F', 'v6:000…'] (catches a dual-stack "::" bind).
function kernelListeners(port) {
  const out = [];
  for (const [file, v6] of [['/proc/net/tcp', false], ['/proc/net/tcp6', true]]) {
    let text = '';
    try { text = fs.readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.trim().split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [addr, hexPort] = cols[1].split(':');
      if (cols[3] === '0A' && parseInt(hexPort, 16) === port) out.push(`${v6 ? 'v6' : 'v4'}:${addr}`);
    }
  }
  return out;
}

async function assertLoopbackOnly(server) {
  try {
    const { address, port } = server.address();
    assert.equal(address, '127.0.0.1');
    if (fs.existsSync('/proc/net/tcp')) assert.deepEqual(kernelListeners(port), [`v4:${LOOP4}`]);
  } finally {
    server.closeAllConnections?.();
    await new Promise((r) => server.close(r));
  }
}

const cases = {
  'listen(0, cb)': (s, cb) => s.listen(0, cb),
  'listen(0)': (s, cb) => { s.listen(0); s.once('listening', cb); },
  'listen()': (s, cb) => { s.listen(); s.once('listening', cb); },
  'listen(cb)': (s, cb) => s.listen(cb),
  'listen("0")': (s, cb) => { s.listen('0'); s.once('listening', cb); },
  'listen(0, "0.0.0.0", cb)': (s, cb) => s.listen(0, '0.0.0.0', cb),
  'listen(0, "::", cb)': (s, cb) => s.listen(0, '::', cb),
  'listen({port: 0}, cb)': (s, cb) => s.listen({ port: 0 }, cb),
  'listen({port: 0, host: "::", ipv6Only: false}, cb)': (s, cb) => s.listen({ port: 0, host: '::', ipv6Only: false }, cb),
  'listen(0, 511, cb)': (s, cb) => s.listen(0, 511, cb),
};
for (const [name, listen] of Object.entries(cases)) {
  test(`http server ${name} binds 127.0.0.1 only`, async () => {
    const srv = http.createServer((_req, res) => res.end('ok'));
    await new Promise((resolve) => listen(srv, resolve));
    await assertLoopbackOnly(srv);
  });
}

test('express app.listen(0) binds 127.0.0.1 and answers on localhost', async (t) => {
  let express;
  try {
    express = (await import('express')).default; // the harness's own express (dependency of the conformance package)
  } catch {
    return t.skip('express not installed');
  }
  const app = express();
  app.get('/', (_req, res) => res.send('ok'));
  const srv = app.listen(0);
  await new Promise((r) => srv.once('listening', r));
  const body = await (await fetch(`http://localhost:${srv.address().port}/`)).text().catch((e) => e.message);
  await assertLoopbackOnly(srv);
  assert.equal(body, 'ok');
});

test('an explicit non-wildcard host is left alone', async () => {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.2', r));
  assert.equal(srv.address().address, '127.0.0.2');
  await new Promise((r) => srv.close(r));
});

test('a unix socket path is left alone', async () => {
  const sock = path.join(os.tmpdir(), `loopback-preload-${process.pid}.sock`);
  const srv = net.createServer();
  await new Promise((r) => srv.listen(sock, r));
  assert.equal(srv.address(), sock);
  await new Promise((r) => srv.close(r));
});

test('via NODE_OPTIONS in a child process, honouring LOOPBACK_HOST and LOOPBACK_PRELOAD_DEBUG', async () => {
  const code = "const s=require('net').createServer().listen(0,()=>{console.log(s.address().address);s.close()})";
  const env = {
    ...process.env,
    NODE_OPTIONS: `--import="${path.join(INTEROP, 'loopback-preload.mjs')}"`,
    LOOPBACK_HOST: '127.0.0.3',
    LOOPBACK_PRELOAD_DEBUG: '1',
  };
  const r = await run(process.execPath, ['-e', code], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), '127.0.0.3');
  assert.match(r.stderr, /\[loopback-preload\] listen on 127\.0\.0\.3:0/);
});

test('address() is known as soon as listen(0) returns, as the auth mocks expect', async () => {
  const code = "const s=require('net').createServer();s.listen(0);console.log(s.address().address, s.address().port>0);s.close()";
  const env = { ...process.env, NODE_OPTIONS: `--import="${path.join(INTEROP, 'loopback-preload.mjs')}"` };
  const r = await run(process.execPath, ['-e', code], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), '127.0.0.1 true');
});
