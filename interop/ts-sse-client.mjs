// A client on the TypeScript SDK v1's SSEClientTransport (@modelcontextprotocol/sdk,
// the HTTP+SSE transport of 2024-11-05), driven by mcpgen's Go interop tests
// against bin/everything's /sse endpoint:
//
//   node ts-sse-client.mjs <url of the SSE endpoint>
//
// It lists the tools, calls echo, a tool that reports progress, one that asks
// the client for a completion (sampling) and one that logs, and prints ONE JSON
// line of what it observed ({ok, server, tools, echo, progress,
// sampling, logs}); on failure ok is false with the error, and it exits 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: ts-sse-client.mjs <url>');
  process.exit(2);
}
const out = { ok: false };
const client = new Client({ name: 'ts-sse-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
let sampled = 0;
client.setRequestHandler(CreateMessageRequestSchema, async () => {
  sampled++;
  return { role: 'assistant', model: 'ts-sse', content: { type: 'text', text: 'sampled by the TypeScript SSE client' } };
});
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params.level); });
const timer = setTimeout(() => { out.error = 'timed out'; console.log(JSON.stringify(out)); process.exit(1); }, 30000);
try {
  const transport = new SSEClientTransport(new URL(url));
  await client.connect(transport);
  out.server = client.getServerVersion()?.name;
  out.tools = (await client.listTools()).tools.length;
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi from the TypeScript SSE client' } });
  out.echo = echo.content[0].text;
  let progress = 0;
  await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: () => { progress++; } });
  out.progress = progress;
  const s = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'capital of France?' } });
  out.sampling = sampled > 0 && JSON.stringify(s.content).includes('sampled by the TypeScript SSE client');
  await client.setLoggingLevel('debug');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  await new Promise((r) => setTimeout(r, 200));
  out.logs = logs.length;
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
}
clearTimeout(timer);
console.log(JSON.stringify(out));
await client.close().catch(() => {});
process.exit(out.ok ? 0 : 1);
