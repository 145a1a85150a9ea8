// The host page of mcpgen's MCP Apps browser test (make test,
// examples/everything TestMCPAppInBrowser), bundled for the browser by
// run.mjs with esbuild. It is a host as the extension describes one, built
// on the extension's own host bridge (@modelcontextprotocol/ext-apps's
// AppBridge) and the official TypeScript client: it connects to the MCP
// server at /mcp (same origin), finds the UI resource of the tool
// show_counter (_meta.ui.resourceUri), reads it, renders it in a sandboxed
// iframe under the Content-Security-Policy its _meta.ui.csp declares, and
// lets the bridge proxy the app's requests (tools/call) to the server.
// What happens is written to #log, and body[data-state] becomes "done"
// (or "error") for the driver.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, buildAllowAttribute, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const hostInfo = { name: 'mcpgen-browser-host', version: '1.0.0' };

function log(line) {
  const li = document.createElement('li');
  li.textContent = line;
  document.getElementById('log').append(li);
}

// csp is the policy a host sets for a UI resource from its declared
// domains (McpUiResourceCsp): nothing but what is declared, inline script
// and style allowed (the resource is one HTML document).
export function csp(c = {}) {
  const list = (xs, none = "'none'") => (xs && xs.length ? xs.join(' ') : none);
  const res = (c.resourceDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${res}`.trim(),
    `style-src 'unsafe-inline' ${res}`.trim(),
    `img-src data: ${res}`.trim(),
    `font-src ${list(c.resourceDomains)}`,
    `media-src ${list(c.resourceDomains)}`,
    `connect-src ${list(c.connectDomains)}`,
    `frame-src ${list(c.frameDomains)}`,
    `base-uri ${list(c.baseUriDomains)}`,
  ].join('; ');
}

async function main() {
  const client = new Client(hostInfo, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  log(`connected to ${client.getServerVersion()?.name} (${client.getNegotiatedProtocolVersion?.() ?? 'negotiated'})`);

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === 'show_counter');
  if (!tool) throw new Error('the server lists no show_counter tool');
  const uri = getToolUiResourceUri(tool);
  log(`show_counter's UI: ${uri}`);
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  const ui = content._meta?.ui ?? {};
  log(`resource ${content.mimeType}, csp ${JSON.stringify(ui.csp ?? {})}`);

  const policy = csp(ui.csp);
  log(`policy: ${policy}`);
  const html = content.text.replace(/<head>/i, (m) => `${m}<meta http-equiv="Content-Security-Policy" content="${policy}">`);
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('allow', buildAllowAttribute(ui.permissions));
  iframe.title = tool.title ?? tool.name;
  document.getElementById('apps').append(iframe);

  const bridge = new AppBridge(client, hostInfo, { serverTools: {}, logging: {} });
  bridge.onloggingmessage = ({ data }) => {
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    log(`app: ${text}`);
    if (text === 'done') document.body.dataset.state = 'done';
    if (text.startsWith('error')) document.body.dataset.state = 'error';
  };
  bridge.oninitialized = () => {
    log('app initialized');
    bridge.sendToolInput({ arguments: { start: 41 } });
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
}

main().catch((err) => {
  log(`host error: ${err?.stack ?? err}`);
  document.body.dataset.state = 'error';
});
