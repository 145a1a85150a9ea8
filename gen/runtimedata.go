package gen

import (
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// This file emits, into methods.gen.go, the data the runtime serves a
// revision from: which methods the runtime answers itself and the feature
// each belongs to, the role of every method the runtime looks at, how the
// revision answers errors it cannot attribute, the error code of a missing
// client capability, the encoders of its task types and of its tool
// execution error. The runtime routes from this data; it never asks which
// era a revision is in to pick a shape.

// runtimeMethod is what the runtime does with a method: role names it to
// the runtime (a mcp.Role constant); feature, when set, is the runtime
// feature that answers it (a mcp.Feature constant), which keeps it out of
// the handler interfaces.
type runtimeMethod struct{ role, feature string }

// runtimeMethods binds the method names the runtime knows, in any
// revision, to their roles. The runtime spells no method name: a revision
// that renames one needs an entry here, not a runtime change.
var runtimeMethods = map[string]runtimeMethod{
	// Answered by the runtime.
	"initialize":                 {"RoleInitialize", "FeatureLifecycle"}, // version and capability negotiation
	"notifications/initialized":  {"RoleInitialized", "FeatureLifecycle"},
	"ping":                       {"RolePing", "FeatureLifecycle"},
	"notifications/cancelled":    {"RoleCancelled", "FeatureLifecycle"},
	"notifications/progress":     {"RoleProgress", "FeatureLifecycle"}, // routed to the pending call
	"logging/setLevel":           {"RoleSetLevel", "FeatureLogging"},   // the session's log level
	"resources/subscribe":        {"RoleSubscribe", "FeatureSubscriptions"},
	"resources/unsubscribe":      {"RoleUnsubscribe", "FeatureSubscriptions"},
	"server/discover":            {"RoleDiscover", "FeatureDiscover"}, // built from the mounted revisions
	"subscriptions/listen":       {"RoleListen", "FeatureListen"},     // listen streams of 2026
	"tasks/get":                  {"RoleTaskGet", "FeatureTasks"},     // tasks are kept by the runtime
	"tasks/result":               {"RoleTaskResult", "FeatureTasks"},
	"tasks/list":                 {"RoleTaskList", "FeatureTasks"},
	"tasks/cancel":               {"RoleTaskCancel", "FeatureTasks"},
	"tasks/update":               {"RoleTaskUpdate", "FeatureTasks"},
	"notifications/tasks/status": {"RoleTaskStatus", "FeatureTasks"},

	// Answered by handlers; the runtime sends them, checks them or
	// derives capabilities from them.
	"notifications/message":                    {"RoleLog", ""},
	"notifications/resources/updated":          {"RoleResourceUpdated", ""},
	"notifications/tools/list_changed":         {"RoleToolsListChanged", ""},
	"notifications/prompts/list_changed":       {"RolePromptsListChanged", ""},
	"notifications/resources/list_changed":     {"RoleResourcesListChanged", ""},
	"notifications/subscriptions/acknowledged": {"RoleListenAcknowledged", ""},
	"tools/list":               {"RoleToolsList", ""},
	"tools/call":               {"RoleToolsCall", ""},
	"prompts/list":             {"RolePromptsList", ""},
	"prompts/get":              {"RolePromptsGet", ""},
	"resources/list":           {"RoleResourcesList", ""},
	"resources/templates/list": {"RoleResourceTemplatesList", ""},
	"resources/read":           {"RoleResourcesRead", ""},
	"completion/complete":      {"RoleComplete", ""},
	"sampling/createMessage":   {"RoleSampling", ""},
	"elicitation/create":       {"RoleElicitation", ""},
	"roots/list":               {"RoleRoots", ""},
}

// owned reports a method the runtime answers itself.
func owned(m *schema.Method) bool { return runtimeMethods[m.Name].feature != "" }

// noIDField is the Protocol.NoID of the revision: OmitID when its error
// response makes the id optional (2025-11-25 on), nothing (NullID, the
// JSON-RPC 2.0 rule) when it requires one, since a string or integer id is
// then all the schema allows and an error that cannot name its request has
// none, or when the revision defines no error response.
func (g *generator) noIDField() jen.Code {
	for _, name := range []string{"JSONRPCErrorResponse", "JSONRPCError"} {
		d := g.spec.Def(name)
		if d == nil {
			continue
		}
		t := g.resolve(d.Type)
		if t == nil || t.Kind != schema.Object {
			return nil
		}
		for _, p := range t.Props {
			if p.Name == "id" && !p.Required {
				return jen.Qual(jsonrpcPk, "OmitID")
			}
		}
		return nil
	}
	return nil
}

// missingCapabilityCode is the Go name of the revision's
// MISSING_REQUIRED_CLIENT_CAPABILITY constant, or "".
func (g *generator) missingCapabilityCode() string {
	for _, c := range g.spec.Constants {
		if c.ErrorCode && c.Name == "MISSING_REQUIRED_CLIENT_CAPABILITY" {
			return constName(c)
		}
	}
	return ""
}

// member is a value fill assigns to a struct member: a Go expression of
// kind shapeString, shapeInt or shapeBool, set only when cond holds (nil:
// always).
type member struct {
	expr jen.Code
	kind shape
	cond jen.Code
}

// fill returns the statements that set the members of the struct n held in
// the variable v to values (by JSON member name), converting each to the
// field's type; the members named in skip the caller sets itself. ok is
// false when n is not a struct, has a required member values does not
// give, or a member whose type fill cannot assign.
func (g *generator) fill(n *named, v string, values map[string]member, skip ...string) (stmts []jen.Code, ok bool) {
	if n == nil || n.shape != shapeStruct {
		return nil, false
	}
	fields, err := g.fields(n)
	if err != nil {
		return nil, false
	}
	for _, f := range fields {
		if slices.Contains(skip, f.prop.Name) {
			continue
		}
		val, have := values[f.prop.Name]
		if !have {
			if f.prop.Required && f.mode != modeConst {
				return nil, false
			}
			continue
		}
		u := g.plain(f.gt).underlying()
		switch {
		case val.kind == shapeString && (u.shape == shapeString || u.shape == shapeEnum):
		case val.kind == u.shape && (u.shape == shapeInt || u.shape == shapeBool):
		default:
			return nil, false
		}
		// Builtin fields take the value as it is; named ones convert it.
		conv := jen.Add(val.expr)
		if f.gt.named != nil {
			conv = jen.Add(g.typeCode(f.gt)).Parens(val.expr)
		}
		var set jen.Code
		switch f.mode {
		case modeValue:
			set = jen.Id(v).Dot(f.name).Op("=").Add(conv)
		case modeOpt:
			set = jen.Id(v).Dot(f.name).Op("=").Qual(wirePkg, "Some").Call(conv)
		default:
			return nil, false
		}
		if val.cond != nil {
			set = jen.If(val.cond).Block(set)
		}
		stmts = append(stmts, set)
	}
	return stmts, true
}

// taskMembers are the members of the task types, from a *mcp.TaskInfo t.
func taskMembers() map[string]member {
	t := func(name string) jen.Code { return jen.Id("t").Dot(name) }
	return map[string]member{
		"taskId":        {t("ID"), shapeString, nil},
		"status":        {t("Status"), shapeString, nil},
		"statusMessage": {t("Message"), shapeString, jen.Id("t").Dot("Message").Op("!=").Lit("")},
		"createdAt":     {t("CreatedAt"), shapeString, nil},
		"lastUpdatedAt": {t("LastUpdatedAt"), shapeString, nil},
		"ttl":           {t("TTLMs"), shapeInt, nil},
		"pollInterval":  {t("PollIntervalMs"), shapeInt, nil},
	}
}

// taskCodec emits the encoders of the revision's task types (2025-11-25:
// Task, CreateTaskResult, GetTaskResult, CancelTaskResult,
// TaskStatusNotificationParams) and returns the
// expression of the mcp.TaskCodec, or nil when the revision lacks one of
// them or has one of a shape the encoders cannot fill.
func (g *generator) taskCodec(f *jen.File) jen.Code {
	info := jen.Op("*").Qual(protoPkg, "TaskInfo")
	marshaler := jen.Qual(wirePkg, "Marshaler")
	var funcs []jen.Code
	// A struct filled from one task: "var v T; <members>; return &v".
	flat := func(def, fn, doc string) bool {
		stmts, ok := g.fill(g.named[def], "v", taskMembers())
		if !ok {
			return false
		}
		body := append([]jen.Code{jen.Var().Id("v").Id(def)}, stmts...)
		funcs = append(funcs, jen.Comment(doc), jen.Func().Id(fn).Params(jen.Id("t").Add(info)).Add(marshaler).Block(append(body, jen.Return(jen.Op("&").Id("v")))...))
		return true
	}
	task := g.named["Task"]
	stmts, ok := g.fill(task, "v", taskMembers())
	if !ok {
		return nil
	}
	funcs = append(funcs,
		jen.Comment("taskOf is the Task of a runtime task."),
		jen.Func().Id("taskOf").Params(jen.Id("t").Add(info)).Id("Task").Block(append(append([]jen.Code{jen.Var().Id("v").Id("Task")}, stmts...), jen.Return(jen.Id("v")))...),
		jen.Comment("encodeTask encodes a runtime task as a Task."),
		jen.Func().Id("encodeTask").Params(jen.Id("t").Add(info)).Add(marshaler).Block(jen.Id("v").Op(":=").Id("taskOf").Call(jen.Id("t")), jen.Return(jen.Op("&").Id("v"))),
	)
	// CreateTaskResult holds the task under one member.
	create := g.named["CreateTaskResult"]
	if create == nil || create.shape != shapeStruct {
		return nil
	}
	cfields, err := g.fields(create)
	if err != nil {
		return nil
	}
	var under string
	for _, fd := range cfields {
		switch {
		case fd.mode == modePtr && fd.gt.named == task:
			under = fd.name
		case fd.prop.Required && fd.mode != modeConst:
			return nil
		}
	}
	if under == "" {
		return nil
	}
	funcs = append(funcs,
		jen.Comment("encodeCreateTask encodes the CreateTaskResult of a runtime task."),
		jen.Func().Id("encodeCreateTask").Params(jen.Id("t").Add(info)).Add(marshaler).Block(
			jen.Id("v").Op(":=").Id("taskOf").Call(jen.Id("t")),
			jen.Return(jen.Op("&").Id("CreateTaskResult").Values(jen.Dict{jen.Id(under): jen.Op("&").Id("v")})),
		))
	if !flat("GetTaskResult", "encodeGetTask", "encodeGetTask encodes the GetTaskResult of a runtime task.") ||
		!flat("CancelTaskResult", "encodeCancelTask", "encodeCancelTask encodes the CancelTaskResult of a runtime task.") ||
		!flat("TaskStatusNotificationParams", "encodeTaskStatus", "encodeTaskStatus encodes the params of the status notification of a runtime task.") {
		return nil
	}
	for _, fn := range funcs {
		f.Add(fn)
	}
	return jen.Op("&").Qual(protoPkg, "TaskCodec").Values(jen.Dict{
		jen.Id("Task"):   jen.Id("encodeTask"),
		jen.Id("Create"): jen.Id("encodeCreateTask"),
		jen.Id("Get"):    jen.Id("encodeGetTask"),
		jen.Id("Cancel"): jen.Id("encodeCancelTask"),
		jen.Id("Status"): jen.Id("encodeTaskStatus"),
	})
}

// toolError emits the constructor of the revision's tool execution error
// (a CallToolResult with one text block and isError, and resultType
// "complete" where results carry one) and returns its name, or "" when
// the revision's CallToolResult or TextContent has a shape it cannot fill.
func (g *generator) toolError(f *jen.File) string {
	res, text := g.named["CallToolResult"], g.named["TextContent"]
	textStmts, ok := g.fill(text, "c", map[string]member{"text": {jen.Id("text"), shapeString, nil}})
	if !ok {
		return ""
	}
	if res == nil || res.shape != shapeStruct {
		return ""
	}
	fields, err := g.fields(res)
	if err != nil {
		return ""
	}
	var content string
	var block jen.Code
	for _, fd := range fields {
		u := g.plain(fd.gt).underlying()
		if fd.prop.Name != "content" || u.shape != shapeSlice || u.elem == nil || u.elem.named == nil || u.elem.named.shape != shapeUnion {
			continue
		}
		for _, m := range u.elem.named.members {
			if m.named == text {
				content, block = fd.name, g.typeCode(u.elem)
			}
		}
	}
	if content == "" {
		return ""
	}
	stmts, ok := g.fill(res, "v", map[string]member{
		"isError":    {jen.True(), shapeBool, nil},
		"resultType": {jen.Lit("complete"), shapeString, nil},
	}, "content")
	if !ok {
		return ""
	}
	body := append([]jen.Code{jen.Var().Id("c").Id("TextContent")}, textStmts...)
	body = append(body, jen.Var().Id("v").Id("CallToolResult"),
		jen.Id("v").Dot(content).Op("=").Index().Add(block).Values(jen.Op("&").Id("c")))
	body = append(body, stmts...)
	body = append(body, jen.Return(jen.Op("&").Id("v")))
	f.Comment("toolError is the CallToolResult of a tool execution error.")
	f.Func().Id("toolError").Params(jen.Id("text").String()).Qual(wirePkg, "Marshaler").Block(body...)
	return "toolError"
}

// roleFields are the Role and Feature entries of a method's table entry.
func roleFields(m *schema.Method, fields jen.Dict) {
	rm, ok := runtimeMethods[m.Name]
	if !ok {
		return
	}
	fields[jen.Id("Role")] = jen.Qual(protoPkg, rm.role)
	if rm.feature != "" {
		fields[jen.Id("Feature")] = jen.Qual(protoPkg, rm.feature)
	}
}
