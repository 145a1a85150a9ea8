// Package oneclient is an MCP client written once, against the types of
// revision 2026-07-28, that talks to servers of every published revision:
// 2026-07-28 natively, the four older ones through the bridges mcpgen
// convert generated (the same Mount serves a server's handlers and a
// client's). Its calls, its answers to the server's requests (sampling,
// elicitation, roots) and the notifications it receives are all of
// 2026-07-28; what an older server cannot be asked fails before it is
// sent, with a protocol.NotCarriedError naming it.
//
// The tests drive it against real servers (the npm reference servers and
// bin/everything on each revision) through a matrix of features.
package oneclient

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/mcp"

	"github.com/mcpgen/mcpgen/examples/everything/mcp/v20241105via20260728"
	"github.com/mcpgen/mcpgen/examples/everything/mcp/v20250326via20260728"
	"github.com/mcpgen/mcpgen/examples/everything/mcp/v20250618via20260728"
	"github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125via20260728"
	mcp26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// Client is a session with one server, typed in 2026-07-28.
type Client struct {
	*mcp26.Client
	Session *mcp.ClientSession
	Handler *Handler
}

// Connect opens a session over t, in whichever revision the server speaks.
func Connect(ctx context.Context, t mcp.ClientTransport, opts mcp.ClientOptions, h *Handler) (*Client, error) {
	cs, err := mcp.Connect(ctx, t, opts,
		mcp26.Mount(h),
		v20251125via20260728.Mount(h),
		v20250618via20260728.Mount(h),
		v20250326via20260728.Mount(h),
		v20241105via20260728.Mount(h))
	if err != nil {
		return nil, err
	}
	return &Client{Client: mcp26.NewClient(cs), Session: cs, Handler: h}, nil
}

// Close ends the session.
func (c *Client) Close() error { return c.Session.Close() }

// Handler answers the server's requests with fixed answers and records
// what the server sent: the requests it answered and the notifications.
type Handler struct {
	// Roots are the roots it lists.
	Roots []mcp26.Root

	mu     sync.Mutex
	events []string
}

// Events are the methods the handler was called for, in order, with a
// detail (a log message's level, an updated resource's URI).
func (h *Handler) Events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

func (h *Handler) record(format string, args ...any) {
	h.mu.Lock()
	h.events = append(h.events, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

// CreateMessage answers sampling with a fixed completion.
func (h *Handler) CreateMessage(_ context.Context, p *mcp26.CreateMessageRequestParams) (*mcp26.CreateMessageResult, error) {
	h.record("sampling/createMessage %d messages", len(p.Messages))
	return &mcp26.CreateMessageResult{Role: mcp26.RoleAssistant, Model: "oneclient", Content: &mcp26.TextContent{Text: "Paris"}}, nil
}

// Elicit accepts a form, answering each requested property with a value
// of its type.
func (h *Handler) Elicit(_ context.Context, p mcp26.ElicitRequestParams) (*mcp26.ElicitResult, error) {
	h.record("elicitation/create")
	form, ok := p.(*mcp26.ElicitRequestFormParams)
	if !ok || form.RequestedSchema == nil {
		return &mcp26.ElicitResult{Action: mcp26.ElicitResultActionDecline}, nil
	}
	content := mcp26.ElicitResultContent{}
	for _, prop := range form.RequestedSchema.Properties {
		name := prop.Name
		switch s := prop.Value.(type) {
		case *mcp26.BooleanSchema:
			content.Set(name, mcp26.ElicitResultContentValueBoolean(true))
		case *mcp26.NumberSchema:
			content.Set(name, mcp26.ElicitResultContentValueNumber(1))
		case *mcp26.TitledSingleSelectEnumSchema:
			if len(s.OneOf) > 0 {
				content.Set(name, mcp26.ElicitResultContentValueString(s.OneOf[0].Const))
			}
		case *mcp26.UntitledSingleSelectEnumSchema:
			if len(s.Enum) > 0 {
				content.Set(name, mcp26.ElicitResultContentValueString(s.Enum[0]))
			}
		default:
			content.Set(name, mcp26.ElicitResultContentValueString("Alice"))
		}
	}
	return &mcp26.ElicitResult{Action: mcp26.ElicitResultActionAccept, Content: content}, nil
}

// ListRoots lists h.Roots.
func (h *Handler) ListRoots(context.Context, *mcp26.ListRootsRequestParams) (*mcp26.ListRootsResult, error) {
	h.record("roots/list")
	return &mcp26.ListRootsResult{Roots: h.Roots}, nil
}

// LoggingMessage records a log message's level.
func (h *Handler) LoggingMessage(_ context.Context, p *mcp26.LoggingMessageNotificationParams) error {
	h.record("notifications/message %s", p.Level)
	return nil
}

// ResourceUpdated records an updated resource.
func (h *Handler) ResourceUpdated(_ context.Context, p *mcp26.ResourceUpdatedNotificationParams) error {
	h.record("notifications/resources/updated %s", p.URI)
	return nil
}

// ToolListChanged records a change of the tool list.
func (h *Handler) ToolListChanged(context.Context, *mcp26.NotificationParams) error {
	h.record("notifications/tools/list_changed")
	return nil
}

// Text is the text of a result's text blocks.
func Text(blocks []mcp26.ContentBlock) string {
	var s string
	for _, b := range blocks {
		if t, ok := b.(*mcp26.TextContent); ok {
			s += t.Text
		}
	}
	return s
}

// Kinds are the types of a result's blocks ("text", "image",
// "resource_link", "resource", …).
func Kinds(blocks []mcp26.ContentBlock) []string {
	var out []string
	for _, b := range blocks {
		var k string
		switch b.(type) {
		case *mcp26.TextContent:
			k = "text"
		case *mcp26.ImageContent:
			k = "image"
		case *mcp26.AudioContent:
			k = "audio"
		case *mcp26.ResourceLink:
			k = "resource_link"
		case *mcp26.EmbeddedResource:
			k = "resource"
		default:
			k = fmt.Sprintf("%T", b)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
