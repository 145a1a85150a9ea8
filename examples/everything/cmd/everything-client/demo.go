package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
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
	for _, era := range []rt.Era{rt.Legacy, rt.Modern} {
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

func demoEra(ctx context.Context, server, url string, era rt.Era, export *telemetry.Export) error {
	name := map[rt.Era]string{rt.Legacy: "stateful (initialize)", rt.Modern: "stateless (_meta on every request)"}[era]
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
	cs, err := rt.Connect(ctx, transport, opts, v25.Mount(legacyHandler{}), v26.Mount(modernHandler{}))
	if err != nil {
		return err
	}
	defer cs.Close()
	show("negotiated %s; server said %s", cs.ProtocolVersion(), jsonOf(cs.ServerResult()))
	progress := rt.WithProgress(ctx, func(u rt.ProgressUpdate) { show("  progress %g/%g", u.Progress, u.Total) })
	if cs.Stateless() {
		c := v26.NewClient(cs)
		tools, err := c.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		show("tools/list: %d tools, cached for %dms (%s)", len(tools.Tools), tools.TTLMs, tools.CacheScope)
		r, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"hello from the generated client"}`)})
		if err != nil {
			return err
		}
		show("tools/call echo -> %s", jsonOf(r))
		if _, err := c.CallTool(progress, &v26.CallToolRequestParams{Name: "test_tool_with_progress"}); err != nil {
			return err
		}
		r, err = c.CallTool(ctx, &v26.CallToolRequestParams{Name: "test_input_required_result_elicitation"})
		if err != nil {
			return err
		}
		show("tools/call test_input_required_result_elicitation (the server asked for a name; our handler answered) -> %s", jsonOf(r))
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
	c := v25.NewClient(cs)
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	show("tools/list: %s", strings.Join(names, ", "))
	r, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"hello from the generated client"}`)})
	if err != nil {
		return err
	}
	show("tools/call echo -> %s", jsonOf(r))
	if _, err := c.CallTool(progress, &v25.CallToolRequestParams{Name: "test_tool_with_progress"}); err != nil {
		return err
	}
	r, err = c.CallTool(ctx, &v25.CallToolRequestParams{Name: "test_sampling", Arguments: v25.CallToolRequestParamsArguments(`{"prompt":"Say hi"}`)})
	if err != nil {
		return err
	}
	show("tools/call test_sampling (the server asked our handler for a completion) -> %s", jsonOf(r))
	rr, err := c.ReadResource(ctx, &v25.ReadResourceRequestParams{URI: "test://static-text"})
	if err != nil {
		return err
	}
	show("resources/read test://static-text -> %s", jsonOf(rr))
	return countTo(ctx, func(ctx context.Context, token string) (string, string, error) {
		p := &v25.CallToolRequestParams{Name: "count_to", Arguments: v25.CallToolRequestParamsArguments(`{"n":25}`)}
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

// legacyHandler answers the server's requests in the stateful era.
type legacyHandler struct{ v25.UnimplementedClientHandler }

func (legacyHandler) CreateMessage(_ context.Context, p *v25.CreateMessageRequestParams) (v25.CreateMessageReply, error) {
	return &v25.CreateMessageResult{Role: v25.RoleAssistant, Model: "demo-model", Content: &v25.TextContent{Text: "Hi!"}, StopReason: wire.Some(v25.CreateMessageResultStopReasonEndTurn)}, nil
}

func (legacyHandler) Elicit(context.Context, v25.ElicitRequestParams) (v25.ElicitReply, error) {
	return &v25.ElicitResult{Action: v25.ElicitResultActionDecline}, nil
}

func (legacyHandler) ListRoots(context.Context, *v25.RequestParams) (*v25.ListRootsResult, error) {
	return &v25.ListRootsResult{Roots: []v25.Root{}}, nil
}

// modernHandler answers input requests in the stateless era.
type modernHandler struct{ v26.UnimplementedClientHandler }

func (modernHandler) Elicit(_ context.Context, p v26.ElicitRequestParams) (*v26.ElicitResult, error) {
	content := v26.ElicitResultContent{}
	if form, ok := p.(*v26.ElicitRequestFormParams); ok && form.RequestedSchema != nil {
		for name := range form.RequestedSchema.Properties {
			content[name] = v26.ElicitResultContentValueString("Gopher")
		}
	}
	return &v26.ElicitResult{Action: v26.ElicitResultActionAccept, Content: content}, nil
}

func (modernHandler) CreateMessage(context.Context, *v26.CreateMessageRequestParams) (*v26.CreateMessageResult, error) {
	return &v26.CreateMessageResult{Role: v26.RoleAssistant, Model: "demo-model", Content: &v26.TextContent{Text: "Paris"}}, nil
}

func (modernHandler) ListRoots(context.Context, *v26.ListRootsRequestParams) (*v26.ListRootsResult, error) {
	return &v26.ListRootsResult{Roots: []v26.Root{}}, nil
}

// pageText is the text of a result's first text block, quoted.
func pageText[B any](blocks []B) string {
	for _, b := range blocks {
		switch t := any(b).(type) {
		case *v25.TextContent:
			return fmt.Sprintf("%q", t.Text)
		case *v26.TextContent:
			return fmt.Sprintf("%q", t.Text)
		}
	}
	return "(no text)"
}
