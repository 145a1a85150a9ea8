package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
)

// TestExactAnswers: answers that must say exactly what went wrong, from
// bin/everything over HTTP.
//
//   - Over the HTTP+SSE transport (/sse), an unknown method is -32601 on
//     the stream and its POST is accepted (202), as for any message of the
//     session: it was 400 and -32600 "carries the stateful revisions
//     only", which an SDK's SSE client takes as fatal to the session.
//   - A session request naming an unsupported MCP-Protocol-Version is 400
//     and -32600 listing the revisions sessions speak, in the message and
//     as data.supported.
//   - The slow tool's bound is declared: seconds 1e308 is a tool error
//     naming /seconds and its bound, not "slept 1e+308s" at once.
func TestExactAnswers(t *testing.T) {
	url := startHTTP(t)
	base := strings.TrimSuffix(url, "/mcp")

	p := openSSE(t, base+"/sse")
	post := base + p.endpoint
	postTo(t, post, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.next()
	postTo(t, post, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if st := postTo(t, post, `{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`); st != http.StatusAccepted {
		t.Errorf("an unknown method over /sse: POST %d, want 202", st)
	}
	if m := p.next(); m["id"] != float64(2) || mustJSON(m["error"]) == "null" || m["error"].(map[string]any)["code"] != float64(jsonrpc.CodeMethodNotFound) {
		t.Errorf("an unknown method over /sse answered %v, want -32601", m)
	}
	if st := postTo(t, post, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); st != http.StatusAccepted {
		t.Errorf("the session after an unknown method: %d", st)
	}
	if m := p.next(); m["id"] != float64(3) || m["result"] == nil {
		t.Errorf("ping after an unknown method: %v", m)
	}

	resp := postSession(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "1999-01-01")
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Error struct {
			Code    int64
			Message string
			Data    struct{ Supported []string }
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05") || len(r.Error.Data.Supported) != 4 {
		t.Errorf("an unsupported MCP-Protocol-Version in a session: %d %+v; want 400, -32600 listing the four stateful revisions", resp.StatusCode, r.Error)
	}

	cs := connectCaps(t, url, rt.Stateful, "")
	res, err := v25.NewClient(cs).CallTool(testContext(t), &v25.CallToolRequestParams{Name: "slow", Arguments: v25.CallToolRequestParamsArguments(`{"seconds":1e308}`)})
	if err != nil || !strings.Contains(textOf(t, res), `"isError":true`) || !strings.Contains(textOf(t, res), "/seconds: must be ≤ 3600") {
		t.Errorf("slow with seconds 1e308: %v %v; want a tool error naming /seconds and its bound", textOf(t, res), err)
	}
}

// stubbornClient answers every elicitation with content that never
// satisfies the multi-round tool (no "name").
type stubbornClient struct{ v25.UnimplementedClientHandler }

func (stubbornClient) Elicit(context.Context, v25.ElicitRequestParams) (v25.ElicitReply, error) {
	return &v25.ElicitResult{Action: v25.ElicitResultActionAccept, Content: v25.ElicitResultContent{{Name: "nickname", Value: v25.ElicitResultContentValueString("x")}}}, nil
}

// TestTooManyInputRounds: a 2025-11-25 client whose elicitation answers
// never satisfy a tool that asks again (its rounds bridged into requests
// to the client) gets, after protocol.MaxInputRounds, a -32603 saying the
// server asked for input more than 10 times — not a bare "internal error"
// whose reason only the server's log had.
func TestTooManyInputRounds(t *testing.T) {
	ctx := testContext(t)
	cs, err := rt.Connect(ctx, &stdio.CommandTransport{Path: binary}, rt.ClientOptions{Era: rt.Stateful, Capabilities: []byte(`{"elicitation":{}}`)}, v25.Mount(stubbornClient{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = v25.NewClient(cs).CallTool(ctx, &v25.CallToolRequestParams{Name: "test_input_required_result_multi_round", Arguments: v25.CallToolRequestParamsArguments(`{}`)})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "asked for input more than 10 times") {
		t.Errorf("a client that never satisfies the tool: %v, want -32603 saying the server asked for input more than 10 times", err)
	}
}
