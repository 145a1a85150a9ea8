package main

import (
	"context"
	"fmt"
	"os"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// runDemo shows one session per era with the server: over stdio (it
// starts server), or over Streamable HTTP when url is set.
//
// With OTEL_EXPORTER_OTLP_ENDPOINT set, its calls are traced and
// measured, and exported there (telemetry.FromEnv).
func runDemo(server, url string) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	export, err := telemetry.FromEnv(ctx, "everything-client", telemetry.Options{})
	if err != nil {
		return err
	}
	defer func() {
		if e := export.Shutdown(context.WithoutCancel(ctx)); err == nil && e != nil {
			err = fmt.Errorf("flushing telemetry: %w", e)
		}
	}()
	for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
		if err := demoEra(ctx, server, url, era, export); err != nil {
			return err
		}
	}
	return nil
}

func show(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func jsonOf(v wire.Marshaler) string {
	b, err := wire.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	s := string(b)
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// demoEra is one session in era: one client, written against the types
// of 2026-07-28, whichever revision the server speaks (2025-11-25 in the
// stateful era, through the bridge mcpgen convert generated).
func demoEra(ctx context.Context, server, url string, era rt.Era, export *telemetry.Export) error {
	name := map[rt.Era]string{rt.Stateful: "stateful (initialize)", rt.Stateless: "stateless (_meta on every request)"}[era]
	var transport rt.ClientTransport = &stdio.CommandTransport{Path: server, Stderr: os.Stderr}
	if url != "" {
		transport = &streamhttp.ClientTransport{URL: url, Logger: warnings()}
		show("\n== %s over Streamable HTTP: %s", name, url)
	} else {
		show("\n== %s over stdio: %s", name, server)
	}
	opts := rt.ClientOptions{Name: "everything-client", Version: "0.1.0", Era: era}
	if export != nil {
		export.InstrumentClient(&opts)
	}
	h := demoHandler{}
	cs, err := rt.Connect(ctx, transport, opts, v26.Mount(h), v20251125via20260728.Mount(h))
	if err != nil {
		return err
	}
	defer cs.Close()
	c := v26.NewClient(cs)
	info, err := c.ServerInfo()
	if err != nil {
		return err
	}
	show("negotiated %s with %s %s", cs.ProtocolVersion(), info.Name, info.Version)
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	show("tools/list: %d tools", len(tools.Tools))
	for _, call := range []struct{ tool, args, what string }{
		{"echo", `{"text":"hello from the generated client"}`, ""},
		{"test_input_required_result_elicitation", `{}`, " (the server asked for a name; our handler answered)"},
		{"test_input_required_result_sampling", `{}`, " (the server asked our handler for a completion)"},
	} {
		r, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: call.tool, Arguments: v26.CallToolRequestParamsArguments(call.args)})
		if err != nil {
			return err
		}
		show("tools/call %s%s -> %s", call.tool, call.what, jsonOf(r))
	}
	progress := rt.WithProgress(ctx, func(u rt.ProgressUpdate) { show("  progress %g/%g", u.Progress, u.Total) })
	if _, err := c.CallTool(progress, &v26.CallToolRequestParams{Name: "test_tool_with_progress"}); err != nil {
		return err
	}
	rr, err := c.ReadResource(ctx, &v26.ReadResourceRequestParams{URI: "test://static-text"})
	if err != nil {
		return err
	}
	show("resources/read test://static-text -> %s", jsonOf(rr))
	return countTo(ctx, func(ctx context.Context, token string) (string, string, error) {
		p := &v26.CallToolRequestParams{Name: "count_to", Arguments: v26.CallToolRequestParamsArguments(`{"n":25}`)}
		if token != "" {
			p.ResumeToken = wire.Some(token)
		}
		r, err := c.CallTool(ctx, p)
		if err != nil {
			return "", "", err
		}
		return pageText(r.Content), r.NextResumeToken.Or(""), nil
	})
}

// countTo follows the resumable tool count_to to its end (resume.Follow):
// call makes one call with the token and returns the page and the next
// token.
func countTo(ctx context.Context, call func(ctx context.Context, token string) (page, next string, err error)) error {
	pages := 0
	err := resume.Follow(ctx, func(ctx context.Context, token string) (string, error) {
		page, next, err := call(ctx, token)
		if err != nil {
			return "", err
		}
		pages++
		more := "the last page"
		if next != "" {
			more = fmt.Sprintf("nextResumeToken (%d bytes)", len(next))
		}
		show("tools/call count_to {n:25} page %d -> %s, %s", pages, page, more)
		return next, nil
	})
	return err
}

// demoHandler answers the server's requests, in either era, with the
// types of 2026-07-28.
type demoHandler struct{}

func (demoHandler) Elicit(_ context.Context, p v26.ElicitRequestParams) (*v26.ElicitResult, error) {
	content := v26.ElicitResultContent{}
	if form, ok := p.(*v26.ElicitRequestFormParams); ok && form.RequestedSchema != nil {
		for _, p := range form.RequestedSchema.Properties {
			content.Set(p.Name, v26.ElicitResultContentValueString("Gopher"))
		}
	}
	return &v26.ElicitResult{Action: v26.ElicitResultActionAccept, Content: content}, nil
}

func (demoHandler) CreateMessage(context.Context, *v26.CreateMessageRequestParams) (*v26.CreateMessageResult, error) {
	return &v26.CreateMessageResult{Role: v26.RoleAssistant, Model: "demo-model", Content: &v26.TextContent{Text: "Paris"}}, nil
}

// pageText is the text of a result's first text block, quoted.
func pageText(blocks []v26.ContentBlock) string {
	for _, b := range blocks {
		if t, ok := b.(*v26.TextContent); ok {
			return fmt.Sprintf("%q", t.Text)
		}
	}
	return "(no text)"
}
