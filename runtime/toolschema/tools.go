package toolschema

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Tool is what a server checks of one of its tools: its schemas, compiled,
// and the x-mcp-header annotations of its input schema.
type Tool struct {
	// In and Out are the compiled input and output schemas; nil when
	// absent, not compiled (Learn without schemas) or not checkable
	// (logged when learned).
	In, Out *Schema
	// Headers are the x-mcp-header annotations of the input schema
	// (learned with headers; none when they are invalid, which is logged).
	Headers []mcpheader.Param
}

// CheckArguments checks a tools/call's arguments against the input
// schema: "" when they conform (or there is nothing to check), else what
// breaks it.
func (t *Tool) CheckArguments(args wire.Raw) string {
	if t == nil || t.In == nil {
		return ""
	}
	if len(args) == 0 {
		args = wire.Raw(`{}`)
	}
	return t.In.Check(args)
}

// CheckResult checks the structuredContent of a CallToolResult against the
// output schema: "" when it conforms or need not (no output schema, an
// error result, a result without structuredContent), else what breaks it.
func (t *Tool) CheckResult(result wire.Raw) string {
	if t == nil || t.Out == nil {
		return ""
	}
	d := wire.NewDecoder(result)
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
		return ""
	}
	return t.Out.Check(structured)
}

// Tools are the tools a server checks, learned once per revision it
// mounts (the key) by listing them through its handler, and forgotten
// when its tool list changes (Forget). The zero value is ready; it is safe
// for concurrent use.
type Tools struct {
	mu sync.Mutex // serializes writers
	// sets is replaced, never changed, so that every call reads it without
	// the lock (keys are a server's mounts: a handful).
	sets atomic.Pointer[map[any]*set]
}

// set is the tools of one key.
type set struct {
	once  sync.Once
	done  atomic.Bool // tools is learned
	tools map[string]*Tool
}

// Lister lists one page of tools: params are tools/list's (a cursor, and
// the _meta of the call that made the server learn).
type Lister func(params wire.Raw) (wire.Marshaler, error)

// Learning is how Get learns a key's tools.
type Learning struct {
	// List lists the tools; nil: the revision has no tools to learn.
	List Lister
	// Meta is the _meta the listing carries (the call's).
	Meta wire.Raw
	// Schemas compiles the schemas; Headers reads the x-mcp-header
	// annotations.
	Schemas, Headers bool
	// Log learns of what cannot be checked.
	Log *slog.Logger
}

// Get returns the tool called name of key, learning key's tools first if
// they are not learned yet (one learning at a time per key; the others
// wait for it); nil for a tool the listing did not have.
func (ts *Tools) Get(key any, name string, l Learning) *Tool {
	s := ts.set(key)
	if s == nil {
		ts.mu.Lock()
		if s = ts.set(key); s == nil {
			s = &set{}
			sets := map[any]*set{key: s}
			if old := ts.sets.Load(); old != nil {
				for k, v := range *old {
					sets[k] = v
				}
			}
			ts.sets.Store(&sets)
		}
		ts.mu.Unlock()
	}
	s.once.Do(func() {
		s.tools = learn(l)
		s.done.Store(true)
	})
	return s.tools[name]
}

// Learned returns the tool called name of key if key's tools are learned;
// learned is false when they are not (yet, or since Forget).
func (ts *Tools) Learned(key any, name string) (tool *Tool, learned bool) {
	s := ts.set(key)
	if s == nil || !s.done.Load() {
		return nil, false
	}
	return s.tools[name], true
}

// Forget drops every learned tool: the next Get learns again.
func (ts *Tools) Forget() {
	ts.mu.Lock()
	ts.sets.Store(nil)
	ts.mu.Unlock()
}

// set returns the set of key, nil if there is none yet.
func (ts *Tools) set(key any) *set {
	if sets := ts.sets.Load(); sets != nil {
		return (*sets)[key]
	}
	return nil
}

// maxPages bounds the pages one learning lists.
const maxPages = 100

// learn lists the tools (at most maxPages pages) and compiles what l asks.
func learn(l Learning) map[string]*Tool {
	out := map[string]*Tool{}
	if l.List == nil {
		return out
	}
	log := l.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cursor := ""
	for range maxPages {
		e := wire.GetEncoder()
		e.ObjectStart()
		if len(l.Meta) > 0 {
			e.FieldRaw(`"_meta":`)
			e.Raw(l.Meta)
		}
		if cursor != "" {
			e.FieldRaw(`"cursor":`)
			e.Str(cursor)
		}
		e.ObjectEnd()
		params := append(wire.Raw(nil), e.Bytes()...)
		wire.PutEncoder(e)
		res, err := l.List(params)
		if err != nil {
			log.Warn("toolschema: listing tools to learn their schemas failed", "err", err)
			return out
		}
		data, err := wire.Marshal(res)
		if err != nil {
			log.Warn("toolschema: listing tools to learn their schemas failed", "err", err)
			return out
		}
		page, err := readPage(data)
		if err != nil {
			log.Warn("toolschema: the tool list does not decode", "err", err)
			return out
		}
		for _, tool := range page.tools {
			t := &Tool{}
			if l.Schemas {
				t.In = compileLogged(log, tool.name, "input", tool.in)
				t.Out = compileLogged(log, tool.name, "output", tool.out)
			}
			if l.Headers {
				hs, err := mcpheader.Params(tool.in)
				if err != nil {
					log.Warn("toolschema: tool has an invalid x-mcp-header annotation; its headers are not checked", "tool", tool.name, "err", err)
				}
				t.Headers = hs
			}
			out[tool.name] = t
		}
		if page.next == "" {
			break
		}
		cursor = page.next
	}
	return out
}

// compileLogged compiles one tool schema; one that does not compile, or
// that this build cannot check, is logged and not checked.
func compileLogged(log *slog.Logger, tool, kind string, raw wire.Raw) *Schema {
	s, err := Compile(raw, kind == "input")
	switch {
	case errors.Is(err, ErrNotChecked):
		log.Warn("toolschema: tool schema not checked: it is not flat, and the program registered no full validator (import github.com/mcpgen/mcpgen/runtime/toolschema/fullschema)", "tool", tool, "schema", kind)
	case err != nil:
		log.Warn("toolschema: tool schema does not compile; not checked", "tool", tool, "schema", kind, "err", fmt.Sprint(err))
	}
	return s
}

// listPage is what learn reads of a ListToolsResult.
type listPage struct {
	tools []pageTool
	next  string // nextCursor
}

// pageTool is what learn reads of a Tool.
type pageTool struct {
	name    string
	in, out wire.Raw // inputSchema, outputSchema
}

// readPage reads a ListToolsResult, JSON the server encoded.
func readPage(data []byte) (listPage, error) {
	var p listPage
	d := wire.NewDecoder(data)
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "tools":
			if d.Peek() == wire.Null {
				return d.Null()
			}
			return d.Array(func() error {
				var t pageTool
				err := d.Object(func(key []byte) error {
					var err error
					switch string(key) {
					case "name":
						t.name, err = d.Str()
					case "inputSchema":
						t.in, err = d.Raw()
					case "outputSchema":
						t.out, err = d.Raw()
					default:
						err = d.Skip()
					}
					return err
				})
				if err == nil {
					p.tools = append(p.tools, t)
				}
				return err
			})
		case "nextCursor":
			if d.Peek() == wire.Null {
				return d.Null()
			}
			var err error
			p.next, err = d.Str()
			return err
		}
		return d.Skip()
	})
	if err == nil {
		err = d.End()
	}
	return p, err
}
