package schema

// This file is the one reviewed table of facts about the MCP schema that
// neither schema.json nor schema.ts states, so the rest of the package can
// stay data-driven. Each entry says why it exists. When a new revision
// breaks one of the rules below, loading fails and names the rule; extend
// this table after reading the prose specification, never elsewhere.

// emptyResultRequests are the requests whose result is EmptyResult: the
// naming rule XRequest -> XResult has no XResult for them. (All stateful
// revisions; none of them exists in 2026-07-28.)
var emptyResultRequests = map[string]bool{
	"PingRequest":        true, // ping
	"SetLevelRequest":    true, // logging/setLevel
	"SubscribeRequest":   true, // resources/subscribe
	"UnsubscribeRequest": true, // resources/unsubscribe
}

// resultAlternative says that a request may also be answered with another
// result type. An entry applies to a revision when the revision defines the
// alternative type.
type resultAlternative struct {
	method, alt, why string
}

var resultAlternatives = []resultAlternative{
	// 2025-11-25 tasks: a task-augmented request (params.task set) is
	// answered at once with CreateTaskResult; the real result comes from
	// tasks/result.
	{"tools/call", "CreateTaskResult", "task-augmented request (params.task)"},
	{"sampling/createMessage", "CreateTaskResult", "task-augmented request (params.task)"},
	{"elicitation/create", "CreateTaskResult", "task-augmented request (params.task)"},
	// 2026-07-28 multi round-trip requests: the server may ask for input
	// first (XResultResponse.result is anyOf InputRequiredResult | XResult).
	{"tools/call", "InputRequiredResult", "multi round-trip request"},
	{"prompts/get", "InputRequiredResult", "multi round-trip request"},
	{"resources/read", "InputRequiredResult", "multi round-trip request"},
}

// mcpNameParams says which params member the Mcp-Name header mirrors on the
// stateless Streamable HTTP transport (2026-07-28 transports prose).
var mcpNameParams = map[string]string{
	"tools/call":     "name",
	"prompts/get":    "name",
	"resources/read": "uri",
}

// senderUnions maps the unions that list what each side sends to the side.
// In 2026-07-28 servers send no JSON-RPC requests: the requests they need
// answered travel inside InputRequiredResult, listed by InputRequest.
var senderUnions = []struct {
	union string
	side  Side
	kind  MethodKind
}{
	{"ClientRequest", Client, Request},
	{"ServerRequest", Server, Request},
	{"InputRequest", Server, Request},
	{"ClientNotification", Client, Notification},
	{"ServerNotification", Server, Notification},
}

// originUnions can only be told apart by the request they answer: their
// members are results with no const member, and EmptyResult (an open
// object with optional members only) matches any of them.
var originUnions = map[string]bool{
	"ServerResult": true,
	"ClientResult": true,
}

// inputRequiredResult names the 2026 result that asks the client for input.
// A union of it and another result is told apart by the VALUE of
// resultType ("input_required"): InputRequiredResult requires nothing but
// resultType, so trying members in order would swallow every complete
// result (basic/index prose: absent resultType means "complete").
const (
	inputRequiredResult = "InputRequiredResult"
	resultTypeMember    = "resultType"
	inputRequiredValue  = "input_required"
	completeValue       = "complete"
)

// excludedDecls are exported schema.ts declarations deliberately left out
// of the model, by revision. Every revision to date defines each exported
// TS type in schema.json too, so the table is empty; an exported TS type
// missing from schema.json fails loading until it is listed here with the
// reason.
var excludedDecls = map[string]map[string]string{}

func excludedDecl(revision, name string) (string, bool) {
	reason, ok := excludedDecls[revision][name]
	return reason, ok
}

// forbiddenMembers are members that the members of a union must not carry
// although their objects are open. 2026-07-28 input requests travel inside
// InputRequiredResult.inputRequests and are not JSON-RPC messages: they have
// no id and no jsonrpc (basic/index and multi round-trip prose; the schema
// dropped both members from these definitions).
var forbiddenMembers = []struct {
	union   string
	members []string
	why     string
}{
	{"InputRequest", []string{"id", "jsonrpc"}, "input requests are not JSON-RPC messages and carry no id or jsonrpc"},
}
