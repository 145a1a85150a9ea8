package goclients

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// npmMemory is the bin/mcpgateway command line (program, arguments)
// fronting npm server-memory over stdio, its graph in a file of the
// test's: an MCP server nobody here wrote, reached through the gateway
// (make test-goclients runs these tests in its pass through the gateway).
func npmMemory(t *testing.T) (string, []string, []string) {
	t.Helper()
	gw, _ := filepath.Abs("../../bin/mcpgateway")
	interop, _ := filepath.Abs("..")
	server := filepath.Join(interop, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	for _, p := range []string{gw, server} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%v (make build; npm ci in interop/)", err)
		}
	}
	env := append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
	return gw, []string{"--stdio", "'" + filepath.Join(interop, "node.sh") + "' '" + server + "'"}, env
}

// entity is what each client stores and reads back.
const entity = `{"entities":[{"name":"gateway","entityType":"program","observations":["fronts any server"]}]}`

// TestGoSDKClientToNPMServer: the go-sdk client, pinned to each revision
// the gateway serves, stores an entity in npm server-memory (which speaks
// one revision of its own) and reads the graph back.
func TestGoSDKClientToNPMServer(t *testing.T) {
	gw, args, env := npmMemory(t)
	for _, version := range revisions {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.Command(gw, args...)
			cmd.Env, cmd.Stderr = env, os.Stderr
			cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "gosdk-interop", Version: "test"}, nil).
				Connect(ctx, &gosdk.CommandTransport{Command: cmd}, &gosdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			var args map[string]any
			if err := jsonUnmarshal(entity, &args); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "create_entities", Arguments: args}); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "read_graph", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if text := gosdkText(res); !strings.Contains(text, "fronts any server") {
				t.Errorf("read_graph through the gateway: %q", text)
			}
		})
	}
}

// TestMCPGoClientToNPMServer: the mcp-go client, likewise, at each
// revision it opens with initialize.
func TestMCPGoClientToNPMServer(t *testing.T) {
	gw, args, env := npmMemory(t)
	for _, version := range revisions[:4] {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcpgoclient.NewStdioMCPClient(gw, env, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ProtocolVersion: version, ClientInfo: mcpgo.Implementation{Name: "mcpgo-interop", Version: "test"}}})
			if err != nil {
				t.Fatal(err)
			}
			if init.ProtocolVersion != version {
				t.Errorf("negotiated %s, want %s", init.ProtocolVersion, version)
			}
			var args map[string]any
			if err := jsonUnmarshal(entity, &args); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "create_entities", Arguments: args}}); err != nil {
				t.Fatal(err)
			}
			res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "read_graph", Arguments: map[string]any{}}})
			if err != nil {
				t.Fatal(err)
			}
			var text string
			for _, c := range res.Content {
				if tc, ok := c.(mcpgo.TextContent); ok {
					text += tc.Text
				}
			}
			if !strings.Contains(text, "fronts any server") {
				t.Errorf("read_graph through the gateway: %q", text)
			}
		})
	}
}

// gosdkText is the text of a go-sdk call result.
func gosdkText(res *gosdk.CallToolResult) string {
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*gosdk.TextContent); ok {
			text += tc.Text
		}
	}
	return text
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
