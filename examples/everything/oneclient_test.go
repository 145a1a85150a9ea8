package main

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/examples/everything/internal/oneclient"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// TestOneClientConversions: the client written against 2026-07-28 (the
// bridges' client side) on each revision, in process: what the server
// told of itself decoded in 2026-07-28's types, results carrying
// 2026-07-28's resultType, and what an older revision cannot carry failing
// before it is sent, with the error naming it — a method the revision
// lacks (server/discover), a params member it lacks (completion/complete's
// context before 2025-06-18); a call's _meta reaches every revision.
func TestOneClientConversions(t *testing.T) {
	srv := fullServer(t)
	for _, c := range []struct {
		version string
		era     protocol.Era
		// notCarried are the calls that must fail before sending, with
		// the member they name ("" for the method).
		notCarried map[string]string
	}{
		{"2024-11-05", rt.Stateful, map[string]string{"server/discover": "", "completion/complete": "context"}},
		{"2025-03-26", rt.Stateful, map[string]string{"server/discover": "", "completion/complete": "context"}},
		{"2025-06-18", rt.Stateful, map[string]string{"server/discover": ""}},
		{"2025-11-25", rt.Stateful, map[string]string{"server/discover": ""}},
		{"2026-07-28", rt.Stateless, nil},
	} {
		t.Run(c.version, func(t *testing.T) {
			ctx := testContext(t)
			h := &oneclient.Handler{}
			cl, err := oneclient.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: c.era, ProtocolVersion: c.version}, h)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if got := cl.Session.ProtocolVersion(); got != c.version {
				t.Fatalf("negotiated %s", got)
			}
			info, err := cl.ServerInfo()
			if err != nil || info == nil || info.Name != "everything" {
				t.Errorf("ServerInfo: %+v, %v", info, err)
			}
			caps, err := cl.ServerCapabilities()
			if err != nil || caps == nil || caps.Tools == nil || caps.Resources == nil {
				t.Errorf("ServerCapabilities: %+v, %v", caps, err)
			}
			r, err := cl.CallTool(ctx, &v26.CallToolRequestParams{Name: "test_simple_text"})
			if err != nil {
				t.Fatal(err)
			}
			if r.ResultType != "complete" {
				t.Errorf("resultType %q, want complete (absent is complete)", r.ResultType)
			}
			// What the server's revision lacks converts to the 2026
			// meaning of its absence, never to an invalid value: every
			// converted result validates as 2026-07-28's.
			results := map[string]func() (interface{ Validate() error }, error){
				"tools/call":               func() (interface{ Validate() error }, error) { return r, nil },
				"tools/list":               func() (interface{ Validate() error }, error) { return cl.ListTools(ctx, nil) },
				"prompts/list":             func() (interface{ Validate() error }, error) { return cl.ListPrompts(ctx, nil) },
				"resources/list":           func() (interface{ Validate() error }, error) { return cl.ListResources(ctx, nil) },
				"resources/templates/list": func() (interface{ Validate() error }, error) { return cl.ListResourceTemplates(ctx, nil) },
				"resources/read": func() (interface{ Validate() error }, error) {
					return cl.ReadResource(ctx, &v26.ReadResourceRequestParams{URI: "test://static-text"})
				},
				"prompts/get": func() (interface{ Validate() error }, error) {
					return cl.GetPrompt(ctx, &v26.GetPromptRequestParams{Name: "test_simple_prompt"})
				},
			}
			for _, method := range slices.Sorted(maps.Keys(results)) {
				res, err := results[method]()
				if err != nil {
					t.Errorf("%s: %v", method, err)
					continue
				}
				if err := res.Validate(); err != nil {
					t.Errorf("%s: the converted result is not a valid 2026-07-28 result: %v", method, err)
				}
				if b, _ := wire.Marshal(res.(wire.Marshaler)); strings.Contains(string(b), `"cacheScope":""`) {
					t.Errorf("%s: %s", method, b)
				}
			}
			calls := map[string]func() error{
				"server/discover": func() error { _, err := cl.Discover(ctx, nil); return err },
				"completion/complete": func() error {
					_, err := cl.Complete(ctx, &v26.CompleteRequestParams{
						Ref:      &v26.PromptReference{Name: "test_prompt_with_arguments"},
						Argument: &v26.CompleteRequestParamsArgument{Name: "arg1", Value: "a"},
						Context:  &v26.CompleteRequestParamsContext{Arguments: v26.CompleteRequestParamsContextArguments{{Name: "arg2", Value: "b"}}},
					})
					return err
				},
				"tools/call": func() error {
					_, err := cl.CallTool(ctx, &v26.CallToolRequestParams{Name: "test_simple_text", Meta: &v26.RequestMetaObject{}})
					return err
				},
			}
			for method, call := range calls {
				err := call()
				var nc *protocol.NotCarriedError
				member, want := c.notCarried[method]
				switch {
				case want && !errors.As(err, &nc):
					t.Errorf("%s: %v, want a NotCarriedError", method, err)
				case want && (nc.Method != method || nc.Member != member || nc.Revision != c.version):
					t.Errorf("%s: %+v, want method %s member %q revision %s", method, nc, method, member, c.version)
				case !want && err != nil:
					t.Errorf("%s: %v", method, err)
				}
			}
		})
	}
}

// TestConvertedNative: a session speaking the client code's own revision,
// or a Caller that is no client session, makes its calls unconverted.
func TestConvertedNative(t *testing.T) {
	cs, err := rt.Connect(context.Background(), &stdio.InProcessTransport{Server: fullServer(t)}, rt.ClientOptions{Era: rt.Stateless}, v26.Mount(struct{}{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if protocol.Converted(cs, v26.Protocol(), "tools/call") != nil {
		t.Error("a native session converts")
	}
	var raw rawCaller
	if protocol.Converted(raw, v26.Protocol(), "tools/call") != nil {
		t.Error("a plain Caller converts")
	}
	if _, err := protocol.ServerValue(raw, v26.Protocol(), "Implementation", nil); err == nil {
		t.Error("ServerValue of a plain Caller: no error")
	}
}

type rawCaller struct{}

func (rawCaller) Call(context.Context, string, wire.Marshaler, wire.Unmarshaler) error { return nil }
func (rawCaller) CallInto(context.Context, string, wire.Marshaler, wire.Into) error    { return nil }
func (rawCaller) Notify(context.Context, string, wire.Marshaler) error                 { return nil }
