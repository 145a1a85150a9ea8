package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/examples/everything/internal/oneclient"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// The feature matrix: one client (internal/oneclient, written once
// against 2026-07-28's types) against real servers nobody here wrote —
// the npm reference servers, over stdio and Streamable HTTP — and against
// bin/everything on each of the five revisions. Each cell is ok, n/a (the
// server offers nothing for it), refused (a call the server did not
// declare, failed before sending) or failed, with the error; the test
// fails when a cell is not what the server's row expects.

// toolCase is a tool call a feature makes.
type toolCase struct {
	name, args string
	// task asks for the call to run as a task (params.task on
	// 2025-11-25, through the bridge; the tasks extension on 2026-07-28).
	task bool
}

// matrixTarget is one server, how to reach it and what to expect of it.
type matrixTarget struct {
	name, transport string
	dial            func(t *testing.T) rt.ClientTransport
	opts            rt.ClientOptions
	tools           map[string]toolCase // by feature
	resource        string              // a resource to read, "" to read the first listed
	prompt          string              // a prompt to get, "" for the first listed
	subscribe       string              // a resource whose updates to subscribe to
	root            string              // the directory the client lists as its root
	touch           toolCase            // the call that makes it change
	want            map[string]string   // feature → the outcome's first word, "ok" when absent
	// lacks are the features the negotiated revision has no place for,
	// with why: not probed, n/a.
	lacks map[string]string
}

var matrixFeatures = []string{"connect", "tools", "text", "image", "structured", "resource links", "embedded resource",
	"resources", "templates", "prompts", "progress", "logging", "sampling", "roots", "elicitation", "subscriptions", "tasks", "undeclared"}

func matrixTargets(t *testing.T) (targets []matrixTarget) {
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "hello.txt"), []byte("hello from mcpgen"), 0o644); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	defer func() {
		for i := range targets {
			targets[i].root = files
		}
	}()
	stdioOf := func(name string, env []string, args ...string) func(t *testing.T) rt.ClientTransport {
		return func(t *testing.T) rt.ClientTransport { return thirdParty(t, name, env, args...) }
	}
	everythingNPM := map[string]toolCase{
		"text":              {name: "echo", args: `{"message":"hi from one client"}`},
		"image":             {name: "get-tiny-image", args: `{}`},
		"structured":        {name: "get-structured-content", args: `{"location":"Chicago"}`},
		"resource links":    {name: "get-resource-links", args: `{"count":2}`},
		"embedded resource": {name: "get-resource-reference", args: `{"resourceType":"Text","resourceId":1}`},
		"progress":          {name: "trigger-long-running-operation", args: `{"duration":1,"steps":2}`},
		"logging":           {name: "toggle-simulated-logging", args: `{}`},
		"sampling":          {name: "trigger-sampling-request", args: `{"prompt":"capital of France?"}`},
		"roots":             {name: "get-roots-list", args: `{}`},
		"elicitation":       {name: "trigger-elicitation-request", args: `{}`},
		"tasks":             {name: "simulate-research-query", args: `{"topic":"go"}`, task: true},
	}
	targets = []matrixTarget{
		{name: "server-everything", transport: "stdio", dial: stdioOf("everything", nil, "stdio"), tools: everythingNPM,
			subscribe: "demo://resource/dynamic/text/1", touch: toolCase{name: "toggle-subscriber-updates", args: `{}`}},
		{name: "server-everything", transport: "streamable http", dial: thirdPartyHTTP, tools: everythingNPM,
			subscribe: "demo://resource/dynamic/text/1", touch: toolCase{name: "toggle-subscriber-updates", args: `{}`}},
		{name: "server-everything", transport: "http+sse", dial: thirdPartySSE, tools: everythingNPM,
			subscribe: "demo://resource/dynamic/text/1", touch: toolCase{name: "toggle-subscriber-updates", args: `{}`}},
		{name: "server-filesystem", transport: "stdio", dial: stdioOf("filesystem", nil, files),
			tools: map[string]toolCase{"text": {name: "read_text_file", args: `{"path":` + string(jsonString(filepath.Join(files, "hello.txt"))) + `}`},
				"roots": {name: "list_allowed_directories", args: `{}`}},
			want: na("image", "structured", "resource links", "embedded resource", "progress", "logging", "sampling", "elicitation", "subscriptions", "tasks",
				"resources", "templates", "prompts")},
		{name: "server-memory", transport: "stdio", dial: stdioOf("memory", []string{"MEMORY_FILE_PATH=" + memory}),
			tools: map[string]toolCase{"text": {name: "create_entities", args: `{"entities":[{"name":"mcpgen","entityType":"project","observations":["written in Go"]}]}`},
				"structured": {name: "read_graph", args: `{}`}},
			want: na("image", "resource links", "embedded resource", "progress", "logging", "sampling", "roots", "elicitation", "subscriptions", "tasks",
				"templates", "prompts")},
	}
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		tools := map[string]toolCase{
			"text":              {name: "echo", args: `{"text":"hi from one client"}`},
			"image":             {name: "test_image_content", args: `{}`},
			"structured":        {name: "test_structured_content", args: `{}`},
			"resource links":    {name: "test_resource_links", args: `{}`},
			"embedded resource": {name: "test_embedded_resource", args: `{}`},
			"progress":          {name: "test_tool_with_progress", args: `{}`},
			"logging":           {name: "test_tool_with_logging", args: `{}`},
			"sampling":          {name: "test_input_required_result_sampling", args: `{}`},
			"roots":             {name: "test_input_required_result_list_roots", args: `{}`},
			"elicitation":       {name: "test_input_required_result_elicitation", args: `{}`},
			"tasks":             {name: "slow_compute", args: `{"seconds":0.2}`, task: true},
		}
		want, lacks := map[string]string{}, map[string]string{}
		era := rt.Stateful
		switch rev {
		case "2026-07-28":
			era = rt.Stateless
			tools["logging"] = toolCase{name: "test_logging_tool", args: `{}`}
			want["undeclared"] = "n/a" // it declares everything
		case "2024-11-05", "2025-03-26":
			for _, f := range []string{"structured", "resource links", "elicitation"} {
				lacks[f] = "2025-06-18 on"
			}
			fallthrough
		case "2025-06-18":
			lacks["tasks"] = "2025-11-25 on"
		}
		for f := range lacks {
			want[f] = "n/a"
		}
		target := matrixTarget{name: "bin/everything " + rev, transport: "stdio",
			dial: func(t *testing.T) rt.ClientTransport {
				return &stdio.CommandTransport{Path: binary, ShutdownTimeout: 2 * time.Second}
			},
			opts:  rt.ClientOptions{ProtocolVersion: rev, Era: era},
			tools: tools, resource: "test://static-text", prompt: "test_simple_prompt",
			subscribe: "test://watched-resource", touch: toolCase{name: "touch_resource", args: `{"uri":"test://watched-resource"}`},
			want: want, lacks: lacks}
		targets = append(targets, target)
		if era == rt.Stateful {
			// The same revision over the HTTP+SSE transport of 2024-11-05
			// (bin/everything's /sse), forced.
			target.transport = "http+sse"
			target.dial = func(t *testing.T) rt.ClientTransport {
				return &streamhttp.ClientTransport{URL: strings.TrimSuffix(startHTTP(t), "/mcp") + "/sse", SSE: streamhttp.SSEOnly}
			}
			targets = append(targets, target)
		}
	}
	return targets
}

// na expects the features to be n/a.
func na(features ...string) map[string]string {
	m := map[string]string{}
	for _, f := range features {
		m[f] = "n/a"
	}
	return m
}

// TestOneClientMatrix runs the matrix (see above) and logs it as a table.
func TestOneClientMatrix(t *testing.T) {
	targets := matrixTargets(t)
	var table strings.Builder
	fmt.Fprintf(&table, "| server | transport | revision | %s |\n|%s\n", strings.Join(matrixFeatures, " | "), strings.Repeat("---|", len(matrixFeatures)+3))
	for _, tg := range targets {
		t.Run(strings.ReplaceAll(tg.name+" "+tg.transport, " ", "_"), func(t *testing.T) {
			cells, revision := runMatrix(t, tg)
			row := checkRow(t, tg, cells, tg.name, tg.transport, revision)
			fmt.Fprintf(&table, "| %s |\n", strings.Join(row, " | "))
		})
	}
	t.Logf("the one-client matrix:\n%s", table.String())
}

// checkRow fails t for every cell not what tg.want expects (its first
// words; "ok" when absent) and returns the row of the table: lead, then
// the cells.
func checkRow(t *testing.T, tg matrixTarget, cells map[string]string, lead ...string) []string {
	row := lead
	for _, f := range matrixFeatures {
		out := cells[f]
		if out == "" {
			out = "n/a"
		}
		want := tg.want[f]
		if want == "" {
			want = "ok"
		}
		if !strings.HasPrefix(out, want) {
			t.Errorf("%s: %s; want %s", f, out, want)
		}
		row = append(row, out)
	}
	return row
}

// runMatrix connects the one client to tg and runs every feature.
func runMatrix(t *testing.T, tg matrixTarget) (map[string]string, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h := &oneclient.Handler{Roots: []v26.Root{{URI: "file://" + tg.root, Name: wire.Some("one client's root")}}}
	opts := tg.opts
	opts.Name, opts.Version, opts.LogLevel = "oneclient", "1", "debug"
	opts.Tasks = tasks.Client(tasks.Options{})
	// The methods the client sends, to tell a call that ran as a task.
	var sentMu sync.Mutex
	var sent []string
	opts.Middleware = []rt.Middleware{func(next rt.MessageHandler) rt.MessageHandler {
		return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
			if m.Outgoing() {
				sentMu.Lock()
				sent = append(sent, m.Method())
				sentMu.Unlock()
			}
			return next(ctx, m)
		}
	}}
	sentTask := func() bool {
		sentMu.Lock()
		defer sentMu.Unlock()
		return slices.ContainsFunc(sent, func(m string) bool { return strings.HasPrefix(m, "tasks/") })
	}
	c, err := oneclient.Connect(ctx, tg.dial(t), opts, h)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close()
	cells := map[string]string{}
	set := func(f string, err error, detail string) {
		var ue *rt.UndeclaredError
		var nc *protocol.NotCarriedError
		switch {
		case errors.As(err, &ue):
			cells[f] = "refused: " + err.Error()
		case errors.As(err, &nc):
			cells[f] = "not carried: " + err.Error()
		case err != nil:
			cells[f] = "failed: " + err.Error()
		default:
			cells[f] = "ok" + detail
		}
	}
	caps, err := c.ServerCapabilities()
	info, err2 := c.ServerInfo()
	if err == nil && err2 == nil && (caps == nil || info == nil) {
		err = errors.New("no capabilities or serverInfo")
	}
	set("connect", errors.Join(err, err2), func() string {
		if info == nil {
			return ""
		}
		return fmt.Sprintf(" (%s %s)", info.Name, info.Version)
	}())
	tools, err := c.ListTools(ctx, nil)
	set("tools", err, "")
	if err != nil {
		return cells, c.Session.ProtocolVersion()
	}
	t.Logf("%s negotiated %s; %d tools", tg.name, c.Session.ProtocolVersion(), len(tools.Tools))
	waitEvent := func(prefix string) error {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if slices.ContainsFunc(h.Events(), func(e string) bool { return strings.HasPrefix(e, prefix) }) {
				return nil
			}
		}
		return fmt.Errorf("no %s reached the handler (events %q)", prefix, h.Events())
	}
	for _, f := range []string{"text", "image", "structured", "resource links", "embedded resource", "progress", "logging", "sampling", "roots", "elicitation", "tasks"} {
		if why, ok := tg.lacks[f]; ok {
			cells[f] = "n/a (" + why + ")"
			continue
		}
		tc, ok := tg.tools[f]
		if !ok {
			continue
		}
		var updates int
		cctx := ctx
		if f == "progress" {
			cctx = rt.WithProgress(ctx, func(rt.ProgressUpdate) { updates++ })
		}
		ctx := cctx
		r, err := func() (*v26.CallToolResult, error) { // ctx is the call's
			p := &v26.CallToolRequestParams{Name: tc.name, Arguments: v26.CallToolRequestParamsArguments(tc.args)}
			if tc.task {
				p.Extra.Set("task", wire.Raw(`{"ttl":60000}`))
			}
			r, err := c.CallTool(ctx, p)
			if err == nil && r.IsError.Value {
				err = fmt.Errorf("%s: isError: %.200s", tc.name, oneclient.Text(r.Content))
			}
			return r, err
		}()
		detail := ""
		if err == nil {
			kinds := oneclient.Kinds(r.Content)
			detail = " (" + strings.Join(kinds, ", ") + ")"
			switch f {
			case "image":
				err = wantKind(kinds, "image")
			case "resource links":
				err = wantKind(kinds, "resource_link")
			case "embedded resource":
				err = wantKind(kinds, "resource")
			case "structured":
				if len(r.StructuredContent) == 0 {
					err = errors.New("no structuredContent")
				}
			case "progress":
				if updates == 0 {
					err = errors.New("no progress notification")
				}
				detail = fmt.Sprintf(" (%d updates)", updates)
			case "logging":
				err = waitEvent("notifications/message")
			case "sampling":
				err = waitEvent("sampling/createMessage")
			case "roots":
				err = waitEvent("roots/list")
			case "tasks":
				if !sentTask() {
					err = errors.New("it did not run as a task (no tasks/* request)")
				}
				detail = " (as a task)"
			case "elicitation":
				err = waitEvent("elicitation/create")
			}
		}
		set(f, err, detail)
	}
	// Resources, templates and prompts: list, then read or get.
	if resources, err := c.ListResources(ctx, nil); err == nil && (tg.resource != "" || len(resources.Resources) > 0) {
		uri := tg.resource
		if uri == "" {
			uri = resources.Resources[0].URI
		}
		r, err := c.ReadResource(ctx, &v26.ReadResourceRequestParams{URI: uri})
		if err == nil && len(r.Contents) == 0 {
			err = errors.New("no contents")
		}
		set("resources", err, fmt.Sprintf(" (%d listed)", len(resources.Resources)))
	} else if err != nil && tg.want["resources"] != "n/a" {
		set("resources", err, "")
	}
	if templates, err := c.ListResourceTemplates(ctx, nil); err == nil && len(templates.ResourceTemplates) > 0 {
		set("templates", nil, fmt.Sprintf(" (%d listed)", len(templates.ResourceTemplates)))
	} else if err != nil && tg.want["templates"] != "n/a" {
		set("templates", err, "")
	}
	if prompts, err := c.ListPrompts(ctx, nil); err == nil && len(prompts.Prompts) > 0 {
		name := tg.prompt
		if name == "" {
			name = prompts.Prompts[0].Name
		}
		r, err := c.GetPrompt(ctx, &v26.GetPromptRequestParams{Name: name})
		if err == nil && len(r.Messages) == 0 {
			err = errors.New("no messages")
		}
		set("prompts", err, fmt.Sprintf(" (%d listed)", len(prompts.Prompts)))
	} else if err != nil && tg.want["prompts"] != "n/a" {
		set("prompts", err, "")
	}
	if tg.subscribe != "" {
		set("subscriptions", subscribe(ctx, c, tg), "")
	}
	// What the server did not declare fails before it is sent.
	var refused []string
	var err3 error
	if caps != nil {
		for _, u := range []struct {
			capability string
			declared   bool
			call       func() error
		}{
			{"resources", caps.Resources != nil, func() error { _, err := c.ListResources(ctx, nil); return err }},
			{"prompts", caps.Prompts != nil, func() error { _, err := c.ListPrompts(ctx, nil); return err }},
			{"completions", caps.Completions != nil || !c.Session.Protocol().Knows("completions"), func() error {
				_, err := c.Complete(ctx, &v26.CompleteRequestParams{Ref: &v26.PromptReference{Name: "x"}, Argument: &v26.CompleteRequestParamsArgument{Name: "a", Value: "b"}})
				return err
			}},
		} {
			if u.declared {
				continue
			}
			var ue *rt.UndeclaredError
			var je *jsonrpc.Error
			err := u.call()
			switch {
			case errors.As(err, &ue):
				refused = append(refused, u.capability)
			case c.Session.Stateless() && errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound:
				// A stateless client learns the capabilities with
				// server/discover but does not refuse calls itself:
				// the server answers -32601.
				refused = append(refused, u.capability+" (-32601)")
			default:
				err3 = errors.Join(err3, fmt.Errorf("%s undeclared, yet the call gave %v", u.capability, err))
			}
		}
	}
	if !c.Session.Stateless() {
		// A call the revision does not have.
		var nc *protocol.NotCarriedError
		if _, err := c.Discover(ctx, nil); !errors.As(err, &nc) {
			err3 = errors.Join(err3, fmt.Errorf("server/discover on %s: %v, want NotCarriedError", c.Session.ProtocolVersion(), err))
		} else {
			refused = append(refused, "server/discover not carried")
		}
	}
	if len(refused) > 0 || err3 != nil {
		set("undeclared", err3, " ("+strings.Join(refused, ", ")+" refused)")
	}
	return cells, c.Session.ProtocolVersion()
}

func wantKind(kinds []string, k string) error {
	if !slices.Contains(kinds, k) {
		return fmt.Errorf("no %s block", k)
	}
	return nil
}

// subscribe listens for updates of tg.subscribe, makes it change and
// waits for the update, on the stream and at the handler.
func subscribe(ctx context.Context, c *oneclient.Client, tg matrixTarget) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	params := &v26.SubscriptionsListenRequestParams{Notifications: &v26.SubscriptionFilter{ResourceSubscriptions: []string{tg.subscribe}}}
	acked := make(chan error, 1)
	for ev, err := range listen.Stream(ctx, c.Session, params) {
		if err != nil {
			return err
		}
		switch ev.Method {
		case listen.MethodAcknowledged:
			if !strings.Contains(string(ev.Params), tg.subscribe) {
				return fmt.Errorf("the acknowledgement does not honour the subscription: %s", ev.Params)
			}
			go func() {
				_, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: tg.touch.name, Arguments: v26.CallToolRequestParamsArguments(tg.touch.args)})
				acked <- err
			}()
		case "notifications/resources/updated":
			if strings.Contains(string(ev.Params), tg.subscribe) {
				if err := <-acked; err != nil {
					return err
				}
				if !slices.Contains(c.Handler.Events(), "notifications/resources/updated "+tg.subscribe) {
					return errors.New("the update did not reach the handler")
				}
				return nil
			}
		}
	}
	return fmt.Errorf("no update of %s: %w", tg.subscribe, ctx.Err())
}
