// Scriptable MCP client on the official TypeScript SDK v2 (@modelcontextprotocol/client),
// driven by mcpgen's Go interop tests.
//
//   node ts-client.mjs --era legacy|modern|auto (--stdio "<command> [args...]" | --http <url>)
//                      --script <name> [--json] [--timeout <ms>]
//   node ts-client.mjs ... --stdio -- <command> [args...]     (argv form, no word splitting)
//
// Eras: legacy = 2025 initialize handshake; modern = pinned 2026-07-28 (server/discover,
// stateless); auto = discover probe, falling back to legacy; pin:<version> = exactly
// that protocol version (2025-03-26, 2025-06-18, …).
//
// Each script prints ONE JSON object on stdout ({ok, script, era, ...observations};
// pretty-printed, or a single line with --json). On failure it still prints what it
// observed with ok:false and error, writes the error to stderr and exits 1.
// Usage errors exit 2. The whole script is bounded by --timeout (default 20000 ms).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const SCRIPTS = { smoke, progress, cancel, mrtr, sampling, elicitation, trace, reference };
const ERAS = {
  legacy: { mode: 'legacy' },
  modern: { mode: { pin: '2026-07-28' } },
  auto: { mode: 'auto', probe: { timeoutMs: 5000 } },
};
// The answers the conformance harness gives, so results look the same.
const SAMPLING_ANSWER = {
  role: 'assistant', model: 'test-model', stopReason: 'endTurn',
  content: { type: 'text', text: 'This is a test response from the client' },
};
const ELICITATION_ANSWER = { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } };

const usage = `usage: ts-client.mjs --era legacy|modern|auto|pin:<version> (--stdio "<command> [args...]" | --http <url>) --script ${Object.keys(SCRIPTS).join('|')} [--json] [--timeout ms]`;

function parseArgs(argv) {
  const o = { json: false, timeout: 20000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--json') o.json = true;
    else if (a === '--era') o.era = val();
    else if (a === '--http') o.http = val();
    else if (a === '--script') o.script = val();
    else if (a === '--timeout') o.timeout = Number(val());
    else if (a === '--stdio') {
      if (argv[i + 1] === '--') { o.stdio = argv.slice(i + 2); break; }
      o.stdio = val().trim().split(/\s+/);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (o.era?.startsWith('pin:')) {
    o.pin = o.era.slice(4);
    // The SDK pins only modern revisions; an older one is asked for in
    // the legacy initialize handshake (see pinInitialize).
    ERAS[o.era] = o.pin >= '2026' ? { mode: { pin: o.pin } } : { mode: 'legacy' };
  }
  if (!ERAS[o.era]) throw new Error('--era must be legacy, modern, auto or pin:<protocol version>');
  if (!SCRIPTS[o.script]) throw new Error(`--script must be one of ${Object.keys(SCRIPTS).join(', ')}`);
  if (!o.stdio === !o.http) throw new Error('give exactly one of --stdio or --http');
  if (o.stdio && !o.stdio[0]) throw new Error('--stdio needs a command');
  if (!(o.timeout > 0)) throw new Error('--timeout must be a positive number of ms');
  return o;
}

function makeTransport(o) {
  return pinInitialize(o, makeBaseTransport(o));
}

// pinInitialize makes the legacy initialize request ask for o.pin (a
// 2024/2025 revision) instead of the newest the SDK knows; the SDK accepts
// the server's answer if it supports that revision.
function pinInitialize(o, t) {
  if (!o.pin || o.pin >= '2026') return t;
  const send = t.send.bind(t);
  t.send = (msg, opts) => {
    if (msg?.method === 'initialize') msg = { ...msg, params: { ...msg.params, protocolVersion: o.pin } };
    return send(msg, opts);
  };
  return t;
}

function makeBaseTransport(o) {
  if (o.http) return new StreamableHTTPClientTransport(new URL(o.http));
  let [command, ...args] = o.stdio;
  if (command.includes('/')) command = path.resolve(command); // relative to our cwd
  // Full environment (not just the SDK's safe default subset), child stderr passed through.
  return new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });
}

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

// Text of a CallToolResult whose content must be exactly one text block.
function onlyText(result, what) {
  check(!result.isError, `${what}: isError result: ${JSON.stringify(result.content)}`);
  const c = result.content;
  check(Array.isArray(c) && c.length === 1 && c[0].type === 'text',
    `${what}: expected exactly one text block, got ${JSON.stringify(c)}`);
  return c[0].text;
}

function allText(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// ---- scripts: each gets (client, out) and records observations on out ----

async function smoke(client, out) {
  out.capabilities = client.getServerCapabilities();
  out.instructions = client.getInstructions();
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => t.name);
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  out.echo = onlyText(echo, 'echo');
  check(out.echo === 'hello', `echo: expected "hello", got ${JSON.stringify(out.echo)}`);

  const { resources } = await client.listResources();
  out.resources = resources.map((r) => r.uri);
  check(resources.length > 0, 'resources/list returned no resources');
  const read = await client.readResource({ uri: resources[0].uri });
  check(read.contents?.length > 0, `resources/read ${resources[0].uri}: empty contents`);
  out.readResource = { uri: resources[0].uri, contents: read.contents };

  const { prompts } = await client.listPrompts();
  out.prompts = prompts.map((p) => p.name);
  check(prompts.length > 0, 'prompts/list returned no prompts');
  const prompt = await client.getPrompt({ name: prompts[0].name });
  check(prompt.messages?.length > 0, `prompts/get ${prompts[0].name}: no messages`);
  out.getPrompt = { name: prompts[0].name, messages: prompt.messages };
}

async function progress(client, out) {
  out.progress = [];
  const result = await client.callTool(
    { name: 'test_tool_with_progress', arguments: {} },
    { onprogress: (p) => out.progress.push({ progress: p.progress, total: p.total, message: p.message }) },
  );
  out.result = result;
  check(!result.isError, `isError result: ${allText(result)}`);
  check(out.progress.length > 0, 'no progress notifications received');
  for (let i = 1; i < out.progress.length; i++) {
    check(out.progress[i].progress >= out.progress[i - 1].progress, 'progress went backwards');
  }
}

async function cancel(client, out) {
  // The SDK rejects an aborted request with SdkError(REQUEST_TIMEOUT, String(signal.reason)),
  // so abort with a recognisable reason to tell our abort from a real timeout.
  const reason = new Error('ts-client-abort');
  const ac = new AbortController();
  const start = Date.now();
  setTimeout(() => ac.abort(reason), 200);
  try {
    const r = await client.callTool({ name: 'slow', arguments: { seconds: 30 } }, { signal: ac.signal });
    throw new Error(`slow was not cancelled; it returned ${JSON.stringify(r)}`);
  } catch (err) {
    if (!ac.signal.aborted) throw err;
    out.rejectedAfterMs = Date.now() - start;
    out.rejection = { name: err?.name, code: err?.code, message: err?.message };
    check(err === reason || String(err?.message).includes(reason.message), `rejected for another reason: ${err}`);
  }
  check(out.rejectedAfterMs < 2000, `rejection took ${out.rejectedAfterMs} ms (limit 2000)`);
  out.aborted = true;
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'still alive' } });
  out.echoAfterCancel = onlyText(echo, 'echo after cancel');
  check(out.echoAfterCancel === 'still alive', `echo after cancel returned ${JSON.stringify(out.echoAfterCancel)}`);
}

// mrtr calls a tool whose handler asks for input with InputRequiredResult:
// in the modern era the SDK fulfils the round itself; in the legacy era the
// server's bridge asks this client with elicitation/create instead.
async function mrtr(client, out) {
  out.elicitations = [];
  client.setRequestHandler('elicitation/create', async (req) => {
    out.elicitations.push(req.params);
    return { action: 'accept', content: { name: 'Alice' } };
  });
  const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
  out.result = result;
  out.text = allText(result);
  check(!result.isError, `isError result: ${out.text}`);
  check(out.elicitations.length > 0, 'the elicitation handler was never called (no input_required round)');
  check(out.text.includes('Alice'), `final text does not mention Alice: ${JSON.stringify(out.text)}`);
}

async function sampling(client, out) {
  const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
  out.result = result;
  out.text = allText(result);
  check(!result.isError, `isError result: ${out.text}`);
  check(out.samplingRequests.length > 0, 'the server never sent sampling/createMessage');
  check(out.text !== '', 'empty result text');
}

async function elicitation(client, out) {
  const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } });
  out.result = result;
  out.text = allText(result);
  check(!result.isError, `isError result: ${out.text}`);
  check(out.elicitationRequests.length > 0, 'the server never sent elicitation/create');
  check(out.text !== '', 'empty result text');
}

// trace sends W3C trace context in params._meta (as the OpenTelemetry MCP
// conventions and SEP-414 say): the server's spans must continue the trace
// (the test reads them from its OTLP receiver). In the legacy era it also
// calls test_sampling and records the traceparent of the server's
// sampling/createMessage, which must be in the same trace.
async function trace(client, out) {
  // A new trace each run (a random version-4 UUID is 32 hex digits).
  out.traceId = randomUUID().replaceAll('-', '');
  out.parentSpanId = randomUUID().replaceAll('-', '').slice(0, 16);
  const _meta = { traceparent: `00-${out.traceId}-${out.parentSpanId}-01`, tracestate: 'mcpgen=ts-client' };
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'traced' }, _meta });
  out.echo = onlyText(echo, 'echo');
  if (out.era === 'legacy') {
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' }, _meta });
    check(!r.isError, `test_sampling: ${allText(r)}`);
    out.samplingTraceparents = out.samplingRequests.map((p) => p?._meta?.traceparent ?? null);
  }
}

// reference drives the npm reference server server-everything (behind
// the gateway, issue 48): its echo, a resource, its simple prompt, and
// trigger-sampling-request, which asks this client for sampling mid-call
// (in the modern era an input round the SDK fulfils itself).
async function reference(client, out) {
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => t.name);
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  out.echo = allText(echo);
  check(out.echo.includes('hello'), `echo: expected "hello" in ${JSON.stringify(out.echo)}`);
  const { resources } = await client.listResources();
  check(resources.length > 0, 'resources/list returned no resources');
  const read = await client.readResource({ uri: resources[0].uri });
  check(read.contents?.length > 0, `resources/read ${resources[0].uri}: empty contents`);
  out.readResource = resources[0].uri;
  const prompt = await client.getPrompt({ name: 'simple-prompt' });
  check(prompt.messages?.length > 0, 'prompts/get simple-prompt: no messages');
  out.prompt = prompt.messages;
  const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
  out.sampled = allText(sampled);
  check(!sampled.isError, `trigger-sampling-request: isError: ${out.sampled}`);
  check(out.samplingRequests.length > 0, 'the server never asked for sampling');
}

// ---- main ----

async function run(o, out) {
  const client = new Client(
    { name: 'mcpgen-interop-ts-client', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} }, versionNegotiation: ERAS[o.era] },
  );
  // Default handlers (mrtr replaces the elicitation one). In the modern era the
  // SDK uses them to auto-fulfil input_required results.
  out.samplingRequests = [];
  out.elicitationRequests = [];
  client.setRequestHandler('sampling/createMessage', async (req) => {
    out.samplingRequests.push(req.params);
    return SAMPLING_ANSWER;
  });
  client.setRequestHandler('elicitation/create', async (req) => {
    out.elicitationRequests.push(req.params);
    return ELICITATION_ANSWER;
  });
  client.onerror = (err) => out.clientErrors.push(err?.message ?? String(err)); // e.g. dropped messages
  activeClient = client;
  await client.connect(makeTransport(o));
  out.era = client.getProtocolEra();
  out.protocolVersion = client.getNegotiatedProtocolVersion();
  out.serverInfo = client.getServerVersion();
  try {
    await SCRIPTS[o.script](client, out);
  } finally {
    await client.close().catch(() => {});
  }
}

let o;
try {
  o = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(`ts-client: ${err.message}\n${usage}`);
  process.exit(2);
}
const out = { ok: false, script: o.script, requestedEra: o.era, clientErrors: [] };
let activeClient;
let finished = false;
const finish = (err) => {
  if (finished) return;
  finished = true;
  if (err) {
    out.error = err?.message ?? String(err);
    console.error(`ts-client ${o.script}: ${err?.stack ?? err}`);
  } else {
    out.ok = true;
  }
  process.stdout.write(JSON.stringify(out, null, o.json ? 0 : 2) + '\n', () => process.exit(err ? 1 : 0));
};
let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true; // from now on run()'s own outcome (e.g. "Connection closed") is ignored
  // Close first (best effort, 1 s) so a stdio child is not left running.
  const closed = activeClient?.close().catch(() => {});
  Promise.race([closed, new Promise((r) => setTimeout(r, 1000))])
    .then(() => finish(new Error(`timed out after ${o.timeout} ms`)));
}, o.timeout);
run(o, out).then(
  () => { if (!timedOut) { clearTimeout(timer); finish(); } },
  (err) => { if (!timedOut) { clearTimeout(timer); finish(err); } },
);
