package goclients

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// revisions are the published revisions bin/everything serves.
var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// everything is the path of bin/everything ($MCPGEN_EVERYTHING, else the
// repository's bin/everything, which make test-goclients builds); with
// $MCPGEN_THROUGH_GATEWAY set, of a script running bin/mcpgateway in
// front of it (make test-goclients runs both).
func everything(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MCPGEN_EVERYTHING")
	if bin == "" {
		bin, _ = filepath.Abs("../../bin/everything")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("bin/everything: %v (run make build)", err)
	}
	if os.Getenv("MCPGEN_THROUGH_GATEWAY") == "" {
		return bin
	}
	// Through bin/mcpgateway: a script that runs the gateway in front of
	// bin/everything, taking the same --http and --addr-file flags.
	gw, _ := filepath.Abs("../../bin/mcpgateway")
	if _, err := os.Stat(gw); err != nil {
		t.Fatalf("bin/mcpgateway: %v (run make build)", err)
	}
	script := filepath.Join(t.TempDir(), "everything-via-gateway")
	body := "#!/bin/sh\nexec '" + gw + "' --stdio \"'" + bin + "'\" \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// serveHTTP starts bin/everything --http on a free port and returns its
// endpoint; the process is interrupted (and drains) when the test ends.
func serveHTTP(t *testing.T) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(everything(t), "--http", "127.0.0.1:0", "--addr-file", addrFile)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	for range 1000 {
		if b, err := os.ReadFile(addrFile); err == nil {
			return "http://" + strings.TrimSpace(string(b)) + "/mcp"
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("bin/everything did not write its address")
	return ""
}

// check is what every client checks, through its own API: the negotiated
// revision, the tool list, a tool call, a resource read and a prompt.
type observed struct {
	version  string
	tools    []string
	echo     string
	resource string
	prompt   string
}

func (o observed) verify(t *testing.T, version string) {
	t.Helper()
	if o.version != version {
		t.Errorf("negotiated %s, want %s", o.version, version)
	}
	if !contains(o.tools, "echo") || !contains(o.tools, "test_simple_text") {
		t.Errorf("tools: %v", o.tools)
	}
	if o.echo != "hello from "+version {
		t.Errorf("echo: %q", o.echo)
	}
	if o.resource != "This is the content of the static text resource." {
		t.Errorf("resources/read: %q", o.resource)
	}
	if o.prompt != "This is a simple prompt for testing." {
		t.Errorf("prompts/get: %q", o.prompt)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// transports are the transports a client is tried over; sse (the
// HTTP+SSE transport of 2024-11-05, bin/everything's /sse) only with the
// stateful revisions.
func transports(version string) []string {
	if version >= "2026" {
		return []string{"stdio", "http"}
	}
	return []string{"stdio", "http", "sse"}
}

// sseURL is the HTTP+SSE endpoint beside the Streamable HTTP one.
func sseURL(url string) string { return strings.TrimSuffix(url, "/mcp") + "/sse" }

// TestGoSDKClient: the official go-sdk client, pinned to each revision.
func TestGoSDKClient(t *testing.T) {
	url := serveHTTP(t)
	for _, version := range revisions {
		for _, tr := range transports(version) {
			t.Run(version+"/"+tr, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				var transport gosdk.Transport = &gosdk.StreamableClientTransport{Endpoint: url}
				switch tr {
				case "stdio":
					transport = &gosdk.CommandTransport{Command: exec.Command(everything(t))}
				case "sse":
					transport = &gosdk.SSEClientTransport{Endpoint: sseURL(url)}
				}
				var elicited []string
				c := gosdk.NewClient(&gosdk.Implementation{Name: "gosdk-interop", Version: "test"}, &gosdk.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *gosdk.ElicitRequest) (*gosdk.ElicitResult, error) {
						elicited = append(elicited, req.Params.Message)
						return &gosdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
					},
				})
				cs, err := c.Connect(ctx, transport, &gosdk.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				var o observed
				if r := cs.InitializeResult(); r != nil {
					o.version = r.ProtocolVersion
				}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range tools.Tools {
					o.tools = append(o.tools, tl.Name)
				}
				res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello from " + version}})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Content) == 1 {
					if tc, ok := res.Content[0].(*gosdk.TextContent); ok {
						o.echo = tc.Text
					}
				}
				rr, err := cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: "test://static-text"})
				if err != nil {
					t.Fatal(err)
				}
				if len(rr.Contents) == 1 {
					o.resource = rr.Contents[0].Text
				}
				pr, err := cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: "test_simple_prompt"})
				if err != nil {
					t.Fatal(err)
				}
				if len(pr.Messages) == 1 {
					if tc, ok := pr.Messages[0].Content.(*gosdk.TextContent); ok {
						o.prompt = tc.Text
					}
				}
				o.verify(t, version)
				if version == "2025-06-18" || version == "2025-11-25" {
					// The server's handlers ask with InputRequiredResult;
					// its bridge asks this client with elicitation/create.
					res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "test_input_required_result_elicitation"})
					if err != nil {
						t.Fatal(err)
					}
					if tc, ok := res.Content[0].(*gosdk.TextContent); !ok || tc.Text != "Hello, Ada!" || len(elicited) != 1 {
						t.Errorf("input rounds through the bridge: %+v, elicited %q", res.Content[0], elicited)
					}
				}
			})
		}
	}
}

// TestMCPGoClient: the mcp-go client, asking for each revision it knows.
func TestMCPGoClient(t *testing.T) {
	url := serveHTTP(t)
	for _, version := range revisions {
		for _, tr := range transports(version) {
			t.Run(version+"/"+tr, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				var c *mcpgoclient.Client
				var err error
				switch tr {
				case "stdio":
					c, err = mcpgoclient.NewStdioMCPClient(everything(t), nil)
				case "sse":
					var tp *transport.SSE
					if tp, err = transport.NewSSE(sseURL(url)); err == nil {
						c = mcpgoclient.NewClient(tp)
						err = c.Start(ctx)
					}
				default:
					var tp *transport.StreamableHTTP
					if tp, err = transport.NewStreamableHTTP(url); err == nil {
						c = mcpgoclient.NewClient(tp)
						err = c.Start(ctx)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
					ProtocolVersion: version,
					ClientInfo:      mcpgo.Implementation{Name: "mcpgo-interop", Version: "test"},
				}})
				if err != nil {
					if version == "2026-07-28" {
						t.Skipf("mcp-go does not open %s sessions with initialize: %v", version, err)
					}
					t.Fatal(err)
				}
				o := observed{version: init.ProtocolVersion}
				tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range tools.Tools {
					o.tools = append(o.tools, tl.Name)
				}
				res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello from " + version}}})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Content) == 1 {
					if tc, ok := res.Content[0].(mcpgo.TextContent); ok {
						o.echo = tc.Text
					}
				}
				rr, err := c.ReadResource(ctx, mcpgo.ReadResourceRequest{Params: mcpgo.ReadResourceParams{URI: "test://static-text"}})
				if err != nil {
					t.Fatal(err)
				}
				if len(rr.Contents) == 1 {
					if tc, ok := rr.Contents[0].(mcpgo.TextResourceContents); ok {
						o.resource = tc.Text
					}
				}
				pr, err := c.GetPrompt(ctx, mcpgo.GetPromptRequest{Params: mcpgo.GetPromptParams{Name: "test_simple_prompt"}})
				if err != nil {
					t.Fatal(err)
				}
				if len(pr.Messages) == 1 {
					if tc, ok := pr.Messages[0].Content.(mcpgo.TextContent); ok {
						o.prompt = tc.Text
					}
				}
				o.verify(t, version)
			})
		}
	}
}
