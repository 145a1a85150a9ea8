package telemetry

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The attribute keys of the MCP semantic conventions (and the general ones
// they use), as in go.opentelemetry.io/otel/semconv/v1.41.0.
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keySession         = attribute.Key("mcp.session.id")
	keyProtocol        = attribute.Key("mcp.protocol.version")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperation       = attribute.Key("gen_ai.operation.name")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyErrorType       = attribute.Key("error.type")
	keyTransport       = attribute.Key("network.transport")
	keyNetworkProtocol = attribute.Key("network.protocol.name")
	keyClientAddress   = attribute.Key("client.address")
)

// ErrorTypeToolError is error.type of a tools/call answered with a result
// whose isError is true (the conventions' tool_error).
const ErrorTypeToolError = "tool_error"

// What a message acts on, by method: the conventions name tools and
// prompts in span names (low cardinality), resources only in attributes
// (unless Options.ResourceURIInName).
type targetKind uint8

const (
	targetNone targetKind = iota
	targetTool
	targetPrompt
	targetResource
)

func targetOf(m *mcp.Message) targetKind {
	switch m.Role() {
	case protocol.RoleToolsCall:
		return targetTool
	case protocol.RolePromptsGet:
		return targetPrompt
	case protocol.RoleResourcesRead, protocol.RoleSubscribe, protocol.RoleUnsubscribe, protocol.RoleResourceUpdated:
		return targetResource
	}
	return targetNone
}

// namesTarget reports a message whose metric attributes name its target.
func namesTarget(m *mcp.Message) bool {
	k := targetOf(m)
	return k == targetTool || k == targetPrompt
}

// target is the part of a span's name after the method ("" for none).
func (t *Telemetry) target(m *mcp.Message, name string) string {
	switch targetOf(m) {
	case targetTool, targetPrompt:
		return name
	case targetResource:
		if t.opts.ResourceURIInName {
			return name
		}
	}
	return ""
}

func spanName(method, target string) string {
	if target == "" {
		return method
	}
	return method + " " + target
}

// outgoingName reads what an outgoing message acts on from its params
// (their name, or uri), which it encodes.
func outgoingName(m *mcp.Message) string {
	key := "name"
	if targetOf(m) == targetResource {
		key = "uri"
	} else if targetOf(m) == targetNone {
		return ""
	}
	d := wire.NewDecoder(m.Params())
	if k, v, err := d.PeekMember(key); err == nil && k == wire.String {
		return string(v)
	}
	return ""
}

// transportName is network.transport for the runtime's transport names:
// stdio is a pipe, HTTP runs on TCP.
func transportName(transport string) string {
	switch transport {
	case mcp.TransportStdio:
		return "pipe"
	case mcp.TransportHTTP:
		return "tcp"
	}
	return ""
}

// appendTransport appends network.transport and, on HTTP,
// network.protocol.name for the runtime's transport name.
func appendTransport(as []attribute.KeyValue, transport string) []attribute.KeyValue {
	if tr := transportName(transport); tr != "" {
		as = append(as, keyTransport.String(tr))
	}
	if transport == mcp.TransportHTTP {
		as = append(as, keyNetworkProtocol.String("http"))
	}
	return as
}

// attributes are a recorded span's attributes besides its outcome.
func (t *Telemetry) attributes(m *mcp.Message, name string) []attribute.KeyValue {
	as := make([]attribute.KeyValue, 0, 10)
	as = append(as, keyMethod.String(m.Method()))
	if s := m.SessionID(); s != "" {
		as = append(as, keySession.String(s))
	}
	if v := m.Revision(); v != "" {
		as = append(as, keyProtocol.String(v))
	}
	if !m.IsNotification() && !m.Outgoing() {
		as = append(as, keyRequestID.String(m.ID().String()))
	}
	switch targetOf(m) {
	case targetTool:
		as = append(as, keyOperation.String("execute_tool"))
		if name != "" {
			as = append(as, keyToolName.String(name))
		}
	case targetPrompt:
		if name != "" {
			as = append(as, keyPromptName.String(name))
		}
	case targetResource:
		if name != "" {
			as = append(as, keyResourceURI.String(name))
		}
	}
	as = appendTransport(as, m.Transport())
	if c := m.Client(); c != "" {
		as = append(as, keyClientAddress.String(c))
	}
	return as
}

// outcome is how a message ended, in the conventions' terms.
type outcome struct {
	errorType  string // error.type; "" for success
	statusCode string // rpc.response.status_code: a JSON-RPC error's code
	message    string // the span status's description
}

// classify reads the outcome of a message: a JSON-RPC error (its code is
// both error.type and rpc.response.status_code), another failure (its Go
// type, or _OTHER), or a tool result with isError (tool_error).
func (t *Telemetry) classify(m *mcp.Message, res wire.Marshaler, err error) outcome {
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			code := strconv.FormatInt(je.Code, 10)
			return outcome{errorType: code, statusCode: code, message: je.Message}
		}
		return outcome{errorType: errorType(err), message: err.Error()}
	}
	if res != nil && m.Role() == protocol.RoleToolsCall && t.fields.toolFailed(res) {
		return outcome{errorType: ErrorTypeToolError, message: "the tool reported an error (isError)"}
	}
	return outcome{}
}

// record sets the outcome on a recorded span: error.type,
// rpc.response.status_code and an Error status when it failed.
func (o outcome) record(span trace.Span) {
	if o.errorType == "" {
		return
	}
	span.SetAttributes(keyErrorType.String(o.errorType))
	if o.statusCode != "" {
		span.SetAttributes(keyStatusCode.String(o.statusCode))
	}
	span.SetStatus(codes.Error, o.message)
}

// errorType is error.type of a failure that is not a JSON-RPC error: the
// context's errors by name, others by their Go type.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	if t := reflect.TypeOf(err); t != nil {
		return t.String()
	}
	return "_OTHER"
}

// toolFailed reports a tools/call result with isError true: a generated
// result type's IsError field (bool or *bool), or the member of the
// result's JSON (a raw result, or one the runtime wrote from a catalog).
func (c *isErrorFields) toolFailed(res wire.Marshaler) bool {
	if raw, ok := mcp.ResultJSON(res); ok {
		return mcp.ToolResultFailed(raw)
	}
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if i := c.index(v.Elem().Type()); i >= 0 {
			f := v.Elem().Field(i)
			switch f.Kind() {
			case reflect.Bool:
				return f.Bool()
			case reflect.Pointer:
				return !f.IsNil() && f.Elem().Kind() == reflect.Bool && f.Elem().Bool()
			}
		}
	}
	b, err := wire.Marshal(res)
	return err == nil && mcp.ToolResultFailed(b)
}

// isErrorFields caches the index of each result type's IsError field (-1
// for none).
type isErrorFields struct{ m sync.Map } // reflect.Type → int

func (c *isErrorFields) index(t reflect.Type) int {
	if i, ok := c.m.Load(t); ok {
		return i.(int)
	}
	i := -1
	if f, ok := t.FieldByName("IsError"); ok && len(f.Index) == 1 {
		i = f.Index[0]
	}
	c.m.Store(t, i)
	return i
}

// metaCarrier reads and writes trace context in a message's params._meta.
type metaCarrier struct{ m *mcp.Message }

func (c metaCarrier) Get(key string) string {
	v, _ := c.m.MetaString(key)
	return v
}

func (c metaCarrier) Set(key, value string) {
	e := wire.GetEncoder()
	e.Str(value)
	c.m.SetMeta(key, append(wire.Raw(nil), e.Bytes()...))
	wire.PutEncoder(e)
}

func (c metaCarrier) Keys() []string { return []string{"traceparent", "tracestate"} }
