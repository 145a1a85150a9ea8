package features

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/toolschema"
	"github.com/mcpgen/mcpgen/runtime/valid"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The set's tools: tools/list (each tool in the shape of the request's
// revision) and tools/call (a task where the tool and the request say so).

func (s *Set) listTools(ctx context.Context, req *Request) (wire.Raw, error) {
	s.mu.RLock()
	tools := slices.Clone(s.tools)
	s.mu.RUnlock()
	tools, private := visible(ctx, tools, func(t *Tool) bool { return t.Eras.serves(req.Protocol) }, func(t *Tool) func(context.Context) bool { return t.Visible })
	return list(s, req, "tools", "ListToolsResult", private, tools, func(e *wire.Encoder, t *Tool) { writeTool(e, req.Protocol, t) })
}

// writeTool writes a tool's definition with the members revision p has.
func writeTool(e *wire.Encoder, p *protocol.Protocol, t *Tool) {
	e.ObjectStart()
	e.Field("name")
	e.Str(t.Name)
	optString(e, p, "Tool", "title", t.Title)
	optString(e, p, "Tool", "description", t.Description)
	e.Field("inputSchema")
	if t.InputSchema != nil {
		e.Raw(t.InputSchema)
	} else {
		e.Raw(wire.Raw(`{"type":"object"}`))
	}
	if t.OutputSchema != nil && p.Has("Tool", "outputSchema") {
		e.Field("outputSchema")
		e.Raw(t.OutputSchema)
	}
	if !t.Annotations.empty() && p.Has("Tool", "annotations") {
		a := t.Annotations
		e.Field("annotations")
		e.ObjectStart()
		optString(e, p, "ToolAnnotations", "title", a.Title)
		for _, h := range []struct {
			name string
			v    wire.Opt[bool]
		}{{"readOnlyHint", a.ReadOnly}, {"destructiveHint", a.Destructive}, {"idempotentHint", a.Idempotent}, {"openWorldHint", a.OpenWorld}} {
			if h.v.Set && p.Has("ToolAnnotations", h.name) {
				e.Field(h.name)
				e.Bool(h.v.Value)
			}
		}
		e.ObjectEnd()
	}
	if t.Task != mcp.TaskForbidden && p.Has("Tool", "execution") {
		e.FieldRaw(`"execution":{"taskSupport":`)
		e.Str(t.Task.String())
		e.ObjectEnd()
	}
	writeIconsMeta(e, p, "Tool", t.Icons, t.Meta)
	e.ObjectEnd()
}

// writeIconsMeta writes an item's icons and _meta where def has them in
// revision p.
func writeIconsMeta(e *wire.Encoder, p *protocol.Protocol, def string, icons []Icon, meta wire.Raw) {
	if len(icons) > 0 && p.Has(def, "icons") {
		e.Field("icons")
		e.ArrayStart()
		for _, ic := range icons {
			e.ObjectStart()
			e.Field("src")
			e.Str(ic.Src)
			optString(e, p, "Icon", "mimeType", ic.MIMEType)
			if len(ic.Sizes) > 0 && p.Has("Icon", "sizes") {
				e.Field("sizes")
				e.ArrayStart()
				for _, sz := range ic.Sizes {
					e.Str(sz)
				}
				e.ArrayEnd()
			}
			optString(e, p, "Icon", "theme", ic.Theme)
			e.ObjectEnd()
		}
		e.ArrayEnd()
	}
	if meta != nil && p.Has(def, "_meta") {
		e.Field("_meta")
		e.Raw(meta)
	}
}

// optString writes a string member when it is set and def has it.
func optString(e *wire.Encoder, p *protocol.Protocol, def, member, v string) {
	if v != "" && p.Has(def, member) {
		e.Field(member)
		e.Str(v)
	}
}

func (s *Set) callTool(ctx context.Context, req *Request) (wire.Raw, error) {
	s.mu.RLock()
	t := s.tool(req.Name)
	s.mu.RUnlock()
	if t != nil && (!t.Eras.serves(req.Protocol) || !sees(ctx, t.Visible)) {
		t = nil // to a principal who does not see it, it does not exist
	}
	if t == nil {
		if req.Handled {
			return nil, ErrNotInSet
		}
		return nil, mcp.InvalidParams("/params/name", "unknown tool "+req.Name)
	}
	if t.Call == nil { // added after NewServer, which refuses it (declared.go)
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "features: tool %s has no Call", t.Name)
	}
	// A task asked of a tool that forbids them is the runtime's error too.
	if r := mcp.RequestFrom(ctx); r != nil && (t.Task != mcp.TaskForbidden || tasks.Requested(ctx)) {
		asTask, err := tasks.Mode(ctx, t.Task)
		if err != nil {
			return nil, err
		}
		if asTask {
			return nil, tasks.Start(ctx, func(ctx context.Context, _ *tasks.Task) (wire.Marshaler, error) {
				return s.runTool(ctx, req, t)
			})
		}
	}
	return s.runTool(ctx, req, t)
}

// runTool runs a call and writes its CallToolResult for the request's
// revision.
func (s *Set) runTool(ctx context.Context, req *Request, t *Tool) (wire.Raw, error) {
	p, args := req.Protocol, req.Arguments
	var res *Result
	err := s.checkArguments(t, args, req.unchecked)
	if err == nil {
		res, err = t.Call(ctx, args)
	}
	if err != nil {
		var ae *ArgumentError
		var je *jsonrpc.Error
		var aw *mcp.AnswerWith
		switch {
		case errors.As(err, &aw), errors.As(err, &je), ctx.Err() != nil:
			return nil, err
		case errors.As(err, &ae) && p.ToolError == nil:
			// Arguments that break the schema are a protocol error in
			// this revision.
			return nil, mcp.InvalidParams("/params/arguments"+ae.Pointer(), ae.Error())
		case errors.As(err, &ae):
			res = &Result{Content: []Content{Text("invalid arguments for tool " + t.Name + ": " + ae.Error())}, IsError: true}
		default:
			res = &Result{Content: []Content{Text(err.Error())}, IsError: true}
		}
	}
	if res == nil {
		return nil, fmt.Errorf("features: tool %s returned no result and no error", t.Name)
	}
	return writeResult(p, req.Stamp, res)
}

// checkArguments checks the arguments of a tool whose Call does not
// (Tool.ArgumentsChecked) against its InputSchema, compiled once per tool.
func (s *Set) checkArguments(t *Tool, args wire.Raw, unchecked bool) error {
	if t.ArgumentsChecked || len(t.InputSchema) == 0 || unchecked {
		return nil
	}
	c := s.compiled(t)
	switch {
	case errors.Is(c.err, toolschema.ErrNotChecked):
		// Added after the server started (Attach refuses the others):
		// the Set promised to check its arguments and cannot.
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", notCheckable(t).Error())
	case c.err != nil:
		return fmt.Errorf("features: tool %s: its inputSchema does not compile: %w", t.Name, c.err)
	case c.schema == nil:
		return nil
	}
	if args == nil {
		args = wire.Raw(`{}`)
	}
	if msg := c.schema.Check(args); msg != "" {
		return &ArgumentError{Violations: []valid.Violation{{Rule: "schema", Message: msg}}}
	}
	return nil
}

// compiled is t's input schema, compiled on first use.
func (s *Set) compiled(t *Tool) *compiledSchema {
	if v, ok := s.schemas.Load(t); ok {
		return v.(*compiledSchema)
	}
	c := &compiledSchema{}
	c.schema, c.err = toolschema.Compile(t.InputSchema, true)
	v, _ := s.schemas.LoadOrStore(t, c)
	return v.(*compiledSchema)
}

// checkable refuses a hand-built tool whose input schema the program
// cannot check: one that is not flat, in a program that registered no
// full JSON Schema validator.
func (s *Set) checkable(t *Tool, unchecked bool) error {
	// With a full validator every schema is checkable: compiling it is
	// left to the first call, as without one a flat schema's is (cheap).
	if t.ArgumentsChecked || len(t.InputSchema) == 0 || unchecked || toolschema.Registered() {
		return nil
	}
	if errors.Is(s.compiled(t).err, toolschema.ErrNotChecked) {
		return notCheckable(t)
	}
	return nil
}

// notCheckable is the error of a tool checkable refuses.
func notCheckable(t *Tool) error {
	return fmt.Errorf("features: tool %s: its inputSchema is not flat, and the program registered no full JSON Schema validator to check its arguments: "+
		"import _ \"github.com/mcpgen/mcpgen/runtime/toolschema/fullschema\" (or set ArgumentsChecked when Call checks them)", t.Name)
}

// compiledSchema is a tool's compiled input schema.
type compiledSchema struct {
	schema *toolschema.Schema
	err    error
}

// writeResult writes a CallToolResult for revision p, stamped with st.
func writeResult(p *protocol.Protocol, st *protocol.Stamp, r *Result) (wire.Raw, error) {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.Field("content")
	e.ArrayStart()
	for _, c := range r.Content {
		c.write(e, p)
	}
	e.ArrayEnd()
	if r.Structured != nil && p.Has("CallToolResult", "structuredContent") {
		e.Field("structuredContent")
		e.Raw(r.Structured)
	}
	if r.IsError {
		e.FieldRaw(`"isError":`)
		e.Bool(true)
	}
	mcp.WriteStamp(e, st)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}
