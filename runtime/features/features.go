// Package features serves tools, prompts and resources declared in plain
// Go on every revision a server mounts.
//
// A user writes functions and marks them with directives:
//
//	// Greet says hello to someone.
//	//
//	//mcp:tool greet readOnly
//	func greet(ctx context.Context, in GreetIn) (Greeting, error)
//
// and mcpgen tools generates, at go generate time, the JSON Schemas of the
// argument and result types, their reflection-free decoders, validators
// and encoders, and a function returning a *Set of the package's
// declarations. The Set is an mcp.Feature: given to
// mcp.ServerOptions.Features, it answers tools/list (paginated), tools/call,
// prompts/list, prompts/get, resources/list, resources/templates/list and
// resources/read in the shape of each request's revision, and announces
// list changes when items are added or removed at run time.
//
// The types here are what generated code builds and what functions may
// return when they want more than one structured value: content blocks
// (Text, Image, Audio, Embedded, Link), a tool Result, prompt Messages,
// resource Contents.
package features

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Eras says which revisions serve an item.
type Eras uint8

// The eras.
const (
	// AllEras serves the item on every mounted revision.
	AllEras Eras = iota
	// StatefulOnly serves it on the revisions with initialize and
	// sessions (2024-11-05 … 2025-11-25): a tool that sends requests to
	// the client while it runs.
	StatefulOnly
	// StatelessOnly serves it on the stateless revisions (2026-07-28 on).
	StatelessOnly
)

// serves reports whether revision p serves an item of eras e.
func (e Eras) serves(p *protocol.Protocol) bool {
	return e == AllEras || (e == StatelessOnly) == p.Stateless()
}

// Tool is a tool: its definition and the generated function that decodes,
// validates and runs a call.
type Tool struct {
	// Name is the tool's name; Title and Description describe it.
	Name, Title, Description string
	// Annotations are the tool's behaviour hints.
	Annotations Annotations
	// InputSchema and OutputSchema are JSON Schemas of the arguments and
	// of structuredContent (nil: the tool returns no structured content).
	InputSchema, OutputSchema wire.Raw
	// Task says whether a call may or must run as a task.
	Task mcp.TaskSupport
	// Icons and Meta are written where the revision has them (icons from
	// 2025-11-25; _meta, a JSON object, from 2025-06-18).
	Icons []Icon
	Meta  wire.Raw
	// Visible, when set, says whether the principal of ctx (mcp.PrincipalFrom)
	// sees the item: it is listed and served to them only (to others it
	// does not exist). A list with such items is private to its principal
	// (cacheScope "private" where a revision caches lists). After a change
	// of what a principal sees, announce it to them alone with
	// mcp.Server.NotifyListChangedTo.
	Visible func(ctx context.Context) bool

	// Eras are the revisions that list and answer it.
	Eras Eras
	// Call decodes the arguments (nil when absent), checks them and runs
	// the tool. An *ArgumentError reports arguments that break the input
	// schema; a *jsonrpc.Error is answered as a protocol error; any other
	// error is a tool execution error (isError), its text the message.
	Call func(ctx context.Context, args wire.Raw) (*Result, error)
	// ArgumentsChecked reports a Call that checks the arguments against
	// InputSchema itself, as a generated tool's decoder does. Otherwise
	// (a tool built by hand) the Set checks them before Call, against
	// InputSchema compiled on the first call (runtime/toolschema), and
	// answers a violation as Call's *ArgumentError would be. An
	// InputSchema that is not flat needs the full validator (import
	// runtime/toolschema/fullschema): without it the Set refuses the tool,
	// at Attach (NewServer fails) or, added later, at its calls (-32603).
	// A server built with ServerOptions.DisableToolSchemas checks none.
	ArgumentsChecked bool
}

// AppMIMEType is the MIME type of an MCP App's UI resource (the
// io.modelcontextprotocol/ui extension, SEP-1865): HTML the host renders
// in a sandbox.
const AppMIMEType = "text/html;profile=mcp-app"

// AppExtension is the MCP Apps extension's name in capabilities.extensions.
const AppExtension = "io.modelcontextprotocol/ui"

// Completer suggests values of an argument of a prompt, or of a variable
// of a template: the completions of value, knowing the arguments already
// resolved (nil when the client sent none).
type Completer func(ctx context.Context, argument, value string, resolved map[string]string) ([]string, error)

// Icon is an icon of a tool, prompt, resource or template (2025-11-25 on).
type Icon struct {
	// Src is its URI (https: or a data: URI); MIMEType its type, Sizes
	// its sizes ("48x48", "any") and Theme the theme it is for ("light",
	// "dark"), all optional.
	Src, MIMEType string
	Sizes         []string
	Theme         string
}

// JSON is the JSON of v (encoding/json): a declared item's _meta given as
// a Go value. It panics when v has none, as a declaration that cannot be
// served is a programming error.
func JSON(v any) wire.Raw {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("features: a declared _meta has no JSON: %v", err))
	}
	return b
}

// Annotations are a tool's hints (all optional).
type Annotations struct {
	Title                                        string
	ReadOnly, Destructive, Idempotent, OpenWorld wire.Opt[bool]
}

func (a Annotations) empty() bool {
	return a.Title == "" && !a.ReadOnly.Set && !a.Destructive.Set && !a.Idempotent.Set && !a.OpenWorld.Set
}

// Result is what a tool call returns.
type Result struct {
	// Content is the unstructured result.
	Content []Content
	// Structured is structuredContent (JSON), nil when none.
	Structured wire.Raw
	// IsError reports a tool execution error.
	IsError bool
}

// Content is one content block, kept as the JSON every revision that has
// its type shares.
type Content struct {
	// def is the schema definition of the block's type (TextContent, …),
	// for revisions that lack it; "" for a text block, whose text is kept
	// as it is and written when the result is.
	def  string
	json wire.Raw
	text string
	// raw, when set, is the text as bytes (a structured result's JSON,
	// shared with structuredContent).
	raw []byte
}

// Text is a text content block.
func Text(s string) Content { return Content{text: s} }

// TextResult is a result of one text block, in one allocation.
func TextResult(s string) *Result {
	r := &struct {
		r Result
		c [1]Content
	}{}
	r.c[0] = Text(s)
	r.r.Content = r.c[:]
	return &r.r
}

// Image is an image content block.
func Image(data []byte, mimeType string) Content {
	return media("ImageContent", "image", data, mimeType)
}

// Audio is an audio content block (revisions before 2025-03-26 get a text
// block saying what was left out).
func Audio(data []byte, mimeType string) Content {
	return media("AudioContent", "audio", data, mimeType)
}

func media(def, typ string, data []byte, mimeType string) Content {
	var e wire.Encoder
	e.ObjectStart()
	e.FieldRaw(`"type":"` + typ + `","data":`)
	e.Str(base64.StdEncoding.EncodeToString(data))
	e.Field("mimeType")
	e.Str(mimeType)
	e.ObjectEnd()
	return Content{def: def, json: e.Bytes()}
}

// Embedded is an embedded resource content block.
func Embedded(c Contents) Content {
	var e wire.Encoder
	e.ObjectStart()
	e.FieldRaw(`"type":"resource","resource":`)
	c.encode(&e)
	e.ObjectEnd()
	return Content{def: "EmbeddedResource", json: e.Bytes()}
}

// Link is a resource link content block (revisions before 2025-06-18 get
// a text block with the URI).
func Link(uri, name, mimeType string) Content {
	var e wire.Encoder
	e.ObjectStart()
	e.FieldRaw(`"type":"resource_link","uri":`)
	e.Str(uri)
	e.Field("name")
	e.Str(name)
	if mimeType != "" {
		e.Field("mimeType")
		e.Str(mimeType)
	}
	e.ObjectEnd()
	return Content{def: "ResourceLink", json: e.Bytes()}
}

// write writes the block for revision p, or a text block standing in for
// a type the revision lacks.
func (c Content) write(e *wire.Encoder, p *protocol.Protocol) {
	if c.def == "" {
		e.ObjectStart()
		e.FieldRaw(`"type":"text","text":`)
		if c.raw != nil {
			e.StrBytes(c.raw)
		} else {
			e.Str(c.text)
		}
		e.ObjectEnd()
		return
	}
	if p.Has(c.def) {
		e.Raw(c.json)
		return
	}
	Text("["+c.def+" left out: revision "+p.Revision+" has no such content]").write(e, p)
}

// Contents is the contents of a resource: Text, or Blob when Text is
// empty and Blob is not nil.
type Contents struct {
	URI, MIMEType string
	Text          string
	Blob          []byte
	// Meta is the contents' _meta (a JSON object), written where the
	// revision has it (2025-06-18 on).
	Meta wire.Raw
}

func (c Contents) encode(e *wire.Encoder) { c.encodeFor(e, nil) }

// encodeFor writes the contents for revision p: with their _meta where it
// has one (nil p: none).
func (c Contents) encodeFor(e *wire.Encoder, p *protocol.Protocol) {
	e.ObjectStart()
	e.Field("uri")
	e.Str(c.URI)
	if c.MIMEType != "" {
		e.Field("mimeType")
		e.Str(c.MIMEType)
	}
	blob := c.Blob != nil && c.Text == ""
	if blob {
		e.Field("blob")
		e.Str(base64.StdEncoding.EncodeToString(c.Blob))
	} else {
		e.Field("text")
		e.Str(c.Text)
	}
	if c.Meta != nil && p != nil && p.Has(map[bool]string{true: "BlobResourceContents", false: "TextResourceContents"}[blob], "_meta") {
		e.Field("_meta")
		e.Raw(c.Meta)
	}
	e.ObjectEnd()
}

// Message is one message of a prompt.
type Message struct {
	// Role is "user" or "assistant".
	Role    string
	Content Content
}

// User is a message from the user's side.
func User(c Content) Message { return Message{Role: "user", Content: c} }

// Assistant is a message from the assistant's side.
func Assistant(c Content) Message { return Message{Role: "assistant", Content: c} }

// Prompt is a prompt: its definition and the generated function that
// checks its arguments and renders it.
type Prompt struct {
	Name, Title, Description string
	Arguments                []PromptArgument
	// Icons and Meta are as a Tool's.
	Icons []Icon
	Meta  wire.Raw
	// Visible is as a Tool's: who sees the item.
	Visible func(ctx context.Context) bool
	// Eras are the revisions that list and answer it.
	Eras Eras
	// Complete, when set, completes a value of argument (completion/complete
	// with a ref/prompt reference): the suggestions for value, knowing the
	// arguments already given (context.arguments, 2025-06-18 on; nil
	// before). The first 100 are sent, with the total.
	Complete Completer
	// Get renders the prompt with its arguments (absent ones missing from
	// the map). A *jsonrpc.Error is answered as it is, any other error as
	// an internal error.
	Get func(ctx context.Context, args map[string]string) (description string, messages []Message, err error)
}

// PromptArgument is an argument of a prompt.
type PromptArgument struct {
	Name, Title, Description string
	Required                 bool
}

// Resource is a resource with a fixed URI.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	// ContentsMeta is the _meta of the contents Read returns that have
	// none of their own (an MCP App's ui: its CSP and permissions).
	ContentsMeta wire.Raw
	// Icons and Meta are as a Tool's.
	Icons []Icon
	Meta  wire.Raw
	// Visible is as a Tool's: who sees the item.
	Visible func(ctx context.Context) bool
	// Read returns its contents.
	Read func(ctx context.Context, uri string) ([]Contents, error)
}

// Template is a family of resources named by a URI template (RFC 6570,
// simple {var} expressions).
type Template struct {
	URITemplate, Name, Title, Description, MIMEType string
	// Complete, when set, completes a value of one of its variables
	// (completion/complete with a ref/resource reference), as a Prompt's.
	Complete Completer
	// Icons and Meta are as a Tool's.
	Icons []Icon
	Meta  wire.Raw
	// Visible is as a Tool's: who sees the item.
	Visible func(ctx context.Context) bool
	// Read returns the contents of a URI the template matches, with the
	// values of its variables.
	Read func(ctx context.Context, uri string, vars map[string]string) ([]Contents, error)
}
