package gateway

import (
	"context"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// backendHandler answers the backend, as the gateway's client handler of
// 2026-07-28 (the bridges convert an older backend's messages up to it):
// its questions go to the front client whose call asked (Gateway.ask),
// its announcements to the front clients the backend serves (every one,
// when it is shared; else those of its principal).
type backendHandler struct {
	g  *Gateway
	sl *slot
}

// CreateMessage implements v26.ClientHandler (sampling).
func (b *backendHandler) CreateMessage(ctx context.Context, params *v26.CreateMessageRequestParams) (*v26.CreateMessageResult, error) {
	resp, err := b.g.ask(ctx, b.sl, "sampling/createMessage", &v26.CreateMessageRequest{Params: params})
	if err != nil {
		return nil, err
	}
	return convert(resp, new(v26.CreateMessageResult))
}

// Elicit implements v26.ClientHandler.
func (b *backendHandler) Elicit(ctx context.Context, params v26.ElicitRequestParams) (*v26.ElicitResult, error) {
	resp, err := b.g.ask(ctx, b.sl, "elicitation/create", &v26.ElicitRequest{Params: params})
	if err != nil {
		return nil, err
	}
	return convert(resp, new(v26.ElicitResult))
}

// ListRoots implements v26.ClientHandler. A backend of one stateful
// front session (PerSession) asks that session's client, whenever it
// asks — a filesystem server asks when its session opens, in no call;
// else the client of the call that asked answers.
func (b *backendHandler) ListRoots(ctx context.Context, params *v26.ListRootsRequestParams) (*v26.ListRootsResult, error) {
	if sess := b.sl.key.session; sess != nil {
		var raw wire.Raw
		if err := sess.Peer().Call(ctx, "roots/list", nil, &raw); err != nil {
			return nil, err
		}
		out := new(v26.ListRootsResult)
		return out, wire.Unmarshal(raw, out)
	}
	resp, err := b.g.ask(ctx, b.sl, "roots/list", &v26.ListRootsRequest{Params: params})
	if err != nil {
		return nil, err
	}
	return convert(resp, new(v26.ListRootsResult))
}

// convert re-reads an input response as the result it answers.
func convert[T wire.Unmarshaler](resp v26.InputResponse, out T) (T, error) {
	b, err := wire.Marshal(resp)
	if err != nil {
		return out, err
	}
	return out, wire.Unmarshal(b, out)
}

// ToolListChanged implements v26.ClientHandler: the front clients hear.
func (b *backendHandler) ToolListChanged(ctx context.Context, _ *v26.NotificationParams) error {
	b.sl.tellList(context.WithoutCancel(ctx), rt.ToolsList)
	return nil
}

// PromptListChanged implements v26.ClientHandler.
func (b *backendHandler) PromptListChanged(ctx context.Context, _ *v26.NotificationParams) error {
	b.sl.tellList(context.WithoutCancel(ctx), rt.PromptsList)
	return nil
}

// ResourceListChanged implements v26.ClientHandler.
func (b *backendHandler) ResourceListChanged(ctx context.Context, _ *v26.NotificationParams) error {
	b.sl.tellList(context.WithoutCancel(ctx), rt.ResourcesList)
	return nil
}

// ResourceUpdated implements v26.ClientHandler: the front clients
// subscribed to the resource hear.
func (b *backendHandler) ResourceUpdated(ctx context.Context, params *v26.ResourceUpdatedNotificationParams) error {
	b.sl.tellUpdated(context.WithoutCancel(ctx), params.URI)
	return nil
}

// LoggingMessage implements v26.ClientHandler. The backend's log message
// goes to every front session it serves whose level admits it: they
// share the backend session whose log it is; and, since a stateless client hears
// of logs only within its requests, to the one stateless request in
// progress when only one is (else it is in the gateway's debug log).
func (b *backendHandler) LoggingMessage(ctx context.Context, params *v26.LoggingMessageNotificationParams) error {
	level, logger, data := string(params.Level), params.Logger.Or(""), wire.Raw(params.Data)
	b.sl.log(context.WithoutCancel(ctx), level, logger, data)
	if r, rctx := b.g.onlyStateless(b.sl); r != nil {
		return r.Log(rctx, level, logger, data)
	}
	b.g.log.Debug("backend log message, for the stateful sessions only", "level", level, "logger", logger)
	return nil
}
