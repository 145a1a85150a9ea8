package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"

	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// wrongCallTool returns *CallToolResult where the generated Server wants
// CallToolReply: without a check it would compile, be mounted, list no
// tools capability and answer every tools/call -32601, silently.
type wrongCallTool struct{}

func (wrongCallTool) CallTool(context.Context, *v26.CallToolRequestParams) (*v26.CallToolResult, error) {
	return &v26.CallToolResult{}, nil
}

// TestMountChecksSignatures: NewServer refuses the handler, naming the
// method, the revision and both signatures.
func TestMountChecksSignatures(t *testing.T) {
	_, err := rt.NewServer(rt.ServerOptions{Name: "t", Version: "1"}, v26.Mount(wrongCallTool{}))
	want := "mcp: revision 2026-07-28: method CallTool of main.wrongCallTool cannot serve tools/call: it is func(context.Context, *v20260728.CallToolRequestParams) (*v20260728.CallToolResult, error), want func(context.Context, *v20260728.CallToolRequestParams) (v20260728.CallToolReply, error)"
	if err == nil || err.Error() != want {
		t.Fatalf("NewServer: %v\nwant %s", err, want)
	}
	// The value of a type whose methods have pointer receivers.
	_, err = rt.NewServer(rt.ServerOptions{Name: "t", Version: "1"}, v26.Mount(handlers{}))
	if err == nil || !strings.Contains(err.Error(), "mount a pointer") {
		t.Fatalf("NewServer with a value: %v", err)
	}
}

// badLink returns a ResourceLink its own Validate rejects (uri "").
type badLink struct{}

func (badLink) CallTool(context.Context, *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.ResourceLink{Name: "report", URI: ""}}}, nil
}

// TestResultValidation: a result breaking the schema is answered -32603
// (and logged) when the server validates results, as in tests, and sent
// as it is otherwise.
func TestResultValidation(t *testing.T) {
	for _, tc := range []struct {
		v    rt.ResultValidation
		sent bool
	}{{rt.ValidateResultsAuto, false}, {rt.ValidateResultsOn, false}, {rt.ValidateResultsOff, true}} {
		var logs strings.Builder
		srv, err := rt.NewServer(rt.ServerOptions{Name: "t", Version: "1", ValidateResults: tc.v, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, v26.Mount(badLink{}))
		if err != nil {
			t.Fatal(err)
		}
		ctx := testContext(t)
		cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateless}, v26.Mount(modernHandler{}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = v26.NewClient(cs).CallTool(ctx, &v26.CallToolRequestParams{Name: "report"})
		cs.Close()
		if tc.sent {
			// The client's own decoder takes it; it is the server's bug.
			if je, ok := err.(*jsonrpc.Error); ok {
				t.Errorf("ValidateResults %d: %v, want the result sent", tc.v, je)
			}
			continue
		}
		je, ok := err.(*jsonrpc.Error)
		if !ok || je.Code != jsonrpc.CodeInternalError {
			t.Errorf("ValidateResults %d: %v, want -32603", tc.v, err)
		}
		if !strings.Contains(logs.String(), "/content/0/uri") {
			t.Errorf("ValidateResults %d: the log does not name the field:\n%s", tc.v, logs.String())
		}
	}
}

// TestRequestStateReplay: the confirmation tool seals its state for one
// use: replaying the retry that completed it is refused; the state is
// also bound to the principal (the transport's; stdio has none).
func TestRequestStateReplay(t *testing.T) {
	p := newStdioPeer(t, fullServer(t))
	const tool = "test_input_required_result_request_state"
	withElicitation := strings.Replace(meta26, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + withElicitation + `}}`)
	first := p.recv()
	var irr struct {
		RequestState string `json:"requestState"`
	}
	if first.Error != nil || json.Unmarshal(first.Result, &irr) != nil || irr.RequestState == "" {
		t.Fatalf("first round: %s", show(first))
	}
	retry := func(id string) *reply {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"` + irr.RequestState + `",` + withElicitation + `}}`)
		return p.recv()
	}
	if r := retry("2"); r.Error != nil || !strings.Contains(string(r.Result), "Confirmed") {
		t.Fatalf("the retry: %s", show(r))
	}
	if r := retry("3"); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "already used") {
		t.Fatalf("the replayed retry: %s, want -32602 already used", show(r))
	}
}
