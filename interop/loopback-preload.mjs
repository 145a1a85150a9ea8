// loopback-preload.mjs — force every TCP listen() in this Node process onto loopback.
//
// Usage (ESM preload, Node >= 18.19 / 20.6):
//   node --import /abs/path/loopback-preload.mjs node_modules/.bin/conformance client ...
//   NODE_OPTIONS="--import=/abs/path/loopback-preload.mjs" npx conformance client ...
//
// Why: the conformance harness starts its mock MCP / OAuth servers with
// `server.listen(0)` / `app.listen(0)` (no host), which Node binds to the
// unspecified address (`::`, dual-stack => every interface). This patch rewrites
// those calls so they bind 127.0.0.1 instead. The harness hands the client
// `http://localhost:<port>/...`, and localhost resolves to 127.0.0.1, so nothing
// else changes.
//
// Rules applied to net.Server.prototype.listen (http/https/express servers all
// inherit it):
//   listen()                         -> listen(0, HOST)
//   listen(cb)                       -> listen(0, HOST, cb)
//   listen(port[, backlog][, cb])    -> listen(port, HOST[, backlog][, cb])
//   listen(port, host, ...)          -> host replaced by HOST only if it is a
//                                       wildcard ('', '0.0.0.0', '::', '[::]', '::0')
//   listen({port, host?, ...}[, cb]) -> same wildcard rule on options.host;
//                                       ipv6Only dropped when host was rewritten
//   listen(path | {path} | handle)   -> untouched (unix sockets, fds, handles)
// HOST = $LOOPBACK_HOST or 127.0.0.1. Set LOOPBACK_PRELOAD_DEBUG=1 to log rewrites.
import net from 'node:net';

const HOST = process.env.LOOPBACK_HOST || '127.0.0.1';
const DEBUG = !!process.env.LOOPBACK_PRELOAD_DEBUG;
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0']);
const origListen = net.Server.prototype.listen;

function isPort(v) {
  return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && /^\d+$/.test(v.trim()));
}

function rewrite(args) {
  const [first] = args;
  if (args.length === 0 || first === undefined || first === null) return [0, HOST, ...args.slice(1)];
  if (typeof first === 'function') return [0, HOST, ...args];
  if (isPort(first)) {
    const second = args[1];
    if (typeof second === 'string') {
      return WILDCARDS.has(second.trim()) ? [first, HOST, ...args.slice(2)] : args;
    }
    if (second === undefined || second === null) return [first, HOST, ...args.slice(2)];
    // listen(port, backlog, cb) or listen(port, cb)
    return [first, HOST, ...args.slice(1)];
  }
  if (typeof first === 'object') {
    // Handles ({_handle}, {fd}) and unix sockets ({path}) are left alone.
    if ('path' in first || '_handle' in first || 'fd' in first || first instanceof net.Server || first instanceof net.Socket) {
      return args;
    }
    if (first.host === undefined || first.host === null || WILDCARDS.has(String(first.host).trim())) {
      const opts = { ...first, host: HOST };
      delete opts.ipv6Only;
      return [opts, ...args.slice(1)];
    }
    return args;
  }
  return args; // string path (unix socket / named pipe) etc.
}

net.Server.prototype.listen = function patchedListen(...args) {
  const out = rewrite(args);
  if (DEBUG && out !== args) {
    const show = (a) => a.map((x) => (typeof x === 'function' ? '<cb>' : JSON.stringify(x))).join(', ');
    process.stderr.write(`[loopback-preload] listen(${show(args)}) -> listen(${show(out)})\n`);
  }
  return origListen.apply(this, out);
};
