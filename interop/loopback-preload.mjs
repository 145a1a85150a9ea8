// loopback-preload.mjs — force every TCP listen() in this Node process onto loopback.
//
// Usage (ESM preload, Node >= 18.19 / 20.6):
//   node --import /abs/path/loopback-preload.mjs node_modules/.bin/conformance client ...
//   NODE_OPTIONS="--import=/abs/path/loopback-preload.mjs" npx conformance client ...
//
// Why: the conformance harness starts its mock MCP / OAuth servers with
// `server.listen(0)` / `app.listen(0)` (no host), which Node binds to the
// unspecified address (`::`, dual-stack => every interface). This patch makes
// those calls bind 127.0.0.1 instead. The harness hands the client
// `http://localhost:<port>/...`, and localhost resolves to 127.0.0.1, so nothing
// else changes.
//
// The bind is synchronous, as listen(port) without a host is: some mocks read
// server.address().port right after listen(0) returns. So a wildcard listen
// becomes listen(<TCP handle already bound to HOST:port>, cb). Rules, on
// net.Server.prototype.listen (http/https/express servers all inherit it):
//   listen(), listen(cb), listen(port[, backlog][, cb])   -> bound to HOST
//   listen(port, host, ...) / listen({port, host})        -> rewritten only if
//                                       host is a wildcard ('', '0.0.0.0', '::', ...)
//   listen(path | {path} | handle | {fd})                 -> untouched
// HOST = $LOOPBACK_HOST or 127.0.0.1. Set LOOPBACK_PRELOAD_DEBUG=1 to log rewrites.
import net from 'node:net';

const HOST = process.env.LOOPBACK_HOST || '127.0.0.1';
const DEBUG = !!process.env.LOOPBACK_PRELOAD_DEBUG;
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0']);
const { TCP, constants } = process.binding('tcp_wrap');
const origListen = net.Server.prototype.listen;

function isPort(v) {
  return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && /^\d+$/.test(v.trim()));
}

// wildcard returns [port, rest] when args ask for every interface, else null.
function wildcard(args) {
  const [first] = args;
  if (args.length === 0 || first === undefined || first === null) return [0, args.slice(1)];
  if (typeof first === 'function') return [0, args];
  if (isPort(first)) {
    const rest = args.slice(1);
    if (typeof rest[0] === 'string') {
      if (!WILDCARDS.has(rest[0].trim())) return null;
      return [Number(first), rest.slice(1)];
    }
    return [Number(first), rest];
  }
  if (typeof first === 'object' && !('path' in first) && !('_handle' in first) && !('fd' in first) && !(first instanceof TCP)) {
    if (first.host != null && !WILDCARDS.has(String(first.host).trim())) return null;
    return [Number(first.port || 0), args.slice(1)];
  }
  return null;
}

net.Server.prototype.listen = function patchedListen(...args) {
  const w = wildcard(args);
  if (!w) return origListen.apply(this, args);
  const [port, rest] = w;
  const handle = new TCP(constants.SERVER);
  const err = handle.bind(HOST, port);
  if (err) throw new Error(`loopback-preload: bind ${HOST}:${port} failed (${err})`);
  if (DEBUG) process.stderr.write(`[loopback-preload] listen on ${HOST}:${port}\n`);
  const cb = rest.find((x) => typeof x === 'function');
  return cb ? origListen.call(this, handle, cb) : origListen.call(this, handle);
};
