package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// toolSchemas checks tools/call arguments against the tool's inputSchema
// and structuredContent against its outputSchema (package toolschema
// compiles and checks them): the steps the engine puts first and last in
// a tools/call's chain, unless ServerOptions.DisableToolSchemas. It learns
// the schemas by
// listing the tools once per mounted revision (through the handler, with
// the caller's _meta), compiles each schema once, and forgets them when the
// tool list changes (Server.NotifyListChanged). Arguments that do not match
// are a tool execution error (isError), as the tools specification asks,
// so the model can correct itself; a result that breaks its outputSchema
// is a server bug, answered as an internal error.
type toolSchemas struct {
	srv  *Server
	mu   sync.Mutex
	sets map[*mounted]*toolSet
}

type toolSet struct {
	once  sync.Once
	done  atomic.Bool // tools is learned
	tools map[string]*toolSchema
}

type toolSchema struct {
	in, out *toolschema.Schema
	// headers are the x-mcp-header annotations of the input schema (on
	// stateless revisions; none when they are invalid).
	headers []mcpheader.Param
}

func (t *toolSchemas) init(s *Server) { t.srv, t.sets = s, map[*mounted]*toolSet{} }

// forget drops every learned schema.
func (t *toolSchemas) forget() {
	t.mu.Lock()
	t.sets = map[*mounted]*toolSet{}
	t.mu.Unlock()
}

func (t *toolSchemas) set(rc *reqCtx, m *mounted, params wire.Raw) *toolSet {
	t.mu.Lock()
	ts := t.sets[m]
	if ts == nil {
		ts = &toolSet{}
		t.sets[m] = ts
	}
	t.mu.Unlock()
	ts.once.Do(func() {
		ts.tools = t.learn(rc, m, params)
		ts.done.Store(true)
	})
	return ts
}

// learned returns m's tool set if it is learned already, else nil.
func (t *toolSchemas) learned(m *mounted) *toolSet {
	t.mu.Lock()
	ts := t.sets[m]
	t.mu.Unlock()
	if ts == nil || !ts.done.Load() {
		return nil
	}
	return ts
}

// learn lists the tools through the handler, compiles their schemas (unless
// DisableToolSchemas) and, on a revision whose tools/call is mirrored in
// headers (Mcp-Name: the stateless Streamable HTTP transport), reads their
// x-mcp-header annotations: one listing serves both.
func (t *toolSchemas) learn(rc *reqCtx, m *mounted, callParams wire.Raw) map[string]*toolSchema {
	out := map[string]*toolSchema{}
	call := m.Protocol.Role(protocol.RoleToolsCall)
	headers := call != nil && call.NameParam != ""
	list := m.Protocol.Role(protocol.RoleToolsList)
	if list == nil || list.Serve == nil || list.Implemented == nil || !list.Implemented(m.Handler) {
		return out
	}
	meta := metaOf(callParams)
	cursor := ""
	for page := 0; page < 100; page++ {
		e := wire.GetEncoder()
		e.ObjectStart()
		if len(meta) > 0 {
			e.FieldRaw(`"_meta":`)
			e.Raw(meta)
		}
		if cursor != "" {
			e.FieldRaw(`"cursor":`)
			e.Str(cursor)
		}
		e.ObjectEnd()
		params := append(wire.Raw(nil), e.Bytes()...)
		wire.PutEncoder(e)
		res, err := list.Serve(rc, m.Handler, params)
		if err != nil {
			t.srv.log.Warn("mcp: listing tools to learn their schemas failed", "err", err)
			return out
		}
		data, err := wire.Marshal(res)
		if err != nil {
			return out
		}
		var page struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(data, &page); err != nil {
			return out
		}
		for _, tool := range page.Tools {
			ts := &toolSchema{}
			if !t.srv.opts.DisableToolSchemas {
				ts.in = t.compile(tool.Name, "input", tool.InputSchema)
				ts.out = t.compile(tool.Name, "output", tool.OutputSchema)
			}
			if headers {
				hs, err := mcpheader.Params(tool.InputSchema)
				if err != nil {
					t.srv.log.Warn("mcp: tool has an invalid x-mcp-header annotation; its headers are not checked", "tool", tool.Name, "err", err)
				}
				ts.headers = hs
			}
			out[tool.Name] = ts
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return out
}

// compile compiles one tool schema; one that does not compile, or that
// this build cannot check, is logged and not checked.
func (t *toolSchemas) compile(tool, kind string, raw json.RawMessage) *toolschema.Schema {
	s, err := toolschema.Compile(raw, kind == "input")
	switch {
	case errors.Is(err, toolschema.ErrNotChecked):
		t.srv.log.Warn("mcp: tool schema not checked: the program is built with -tags mcpgen_nojsonschema", "tool", tool, "schema", kind)
	case err != nil:
		t.srv.log.Warn("mcp: tool schema does not compile; not checked", "tool", tool, "schema", kind, "err", err)
	}
	return s
}

// checkCall validates the arguments of a tools/call. A non-nil result is
// the tool execution error to answer with.
func (t *toolSchemas) checkCall(rc *reqCtx, m *mounted) (wire.Marshaler, error) {
	if t.srv.opts.DisableToolSchemas {
		return nil, nil
	}
	name, args := rc.r.in.toolName(), rc.r.in.args
	ts := t.set(rc, m, rc.r.in.req.Params).tools[name]
	if ts == nil || ts.in == nil {
		return nil, nil
	}
	if len(args) == 0 {
		args = wire.Raw(`{}`)
	}
	if msg := ts.in.Check(args); msg != "" {
		return toolError(m.Protocol, "invalid arguments for tool "+name+": "+msg)
	}
	return nil, nil
}

// checkResult validates structuredContent against the outputSchema.
func (t *toolSchemas) checkResult(rc *reqCtx, m *mounted, res wire.Marshaler) error {
	if t.srv.opts.DisableToolSchemas {
		return nil
	}
	name := rc.r.in.toolName()
	ts := t.set(rc, m, rc.r.in.req.Params).tools[name]
	if ts == nil || ts.out == nil {
		return nil
	}
	data, ok := written(res)
	if !ok {
		var err error
		if data, err = wire.Marshal(res); err != nil {
			return err
		}
	}
	d := wire.NewDecoder(data)
	var structured wire.Raw
	isError := false
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "structuredContent":
			structured, err = d.Raw()
		case "isError":
			if d.Peek() == wire.Bool {
				isError, err = d.Bool()
				return err
			}
			err = d.Skip()
		default:
			err = d.Skip()
		}
		return err
	})
	if isError || structured == nil {
		// Errors and results that are not structured need not conform.
		return nil
	}
	if msg := ts.out.Check(structured); msg != "" {
		return fmt.Errorf("tool %s: structuredContent does not match its outputSchema: %s", name, msg)
	}
	return nil
}

// metaOf returns params._meta, or nil.
func metaOf(params wire.Raw) wire.Raw {
	if len(params) == 0 {
		return nil
	}
	var meta wire.Raw
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		if string(key) == "_meta" {
			var err error
			meta, err = d.Raw()
			return err
		}
		return d.Skip()
	})
	return meta
}

// toolError is the answer to arguments that break a tool's inputSchema: a
// tool execution error (the revision's CallToolResult with isError), as
// the tools specification asks, so the model can correct itself; -32602
// in a revision whose generated package has no such result.
func toolError(p *protocol.Protocol, text string) (wire.Marshaler, error) {
	if p.ToolError == nil {
		return nil, InvalidParams("/params/arguments", text)
	}
	return p.ToolError(text), nil
}
