package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// buildMethods derives the method table. Each fact comes from the first
// source that settles it, in this order (docs/upgrading.md, "Upgrading to a new
// revision"):
//
//  1. what the revision states in its own definitions: the method
//     constants of XRequest/XNotification, the XResultResponse definitions
//     of newer revisions (whose result wins over any table);
//  2. union membership: the sender unions (ClientRequest, ServerNotification,
//     InputRequest...) and, for a request none lists, the ClientResult or
//     ServerResult union its result is in;
//  3. the naming rules: XRequest -> XResult, ...Request and ...Notification;
//  4. the facts: an --overrides file, then the embedded facts.txt;
//  5. a documented fallback, with a warning (see Class).
func buildMethods(spec *Spec) error {
	d := &deriver{spec: spec, facts: spec.facts}
	return d.run()
}

type deriver struct {
	spec  *Spec
	facts *Facts
}

// senderUnion is a union that lists what one side sends.
type senderUnion struct {
	union string
	side  Side
	kind  MethodKind
}

func (d *deriver) senderUnions() []senderUnion {
	var out []senderUnion
	for _, f := range d.facts.all(FactSenderUnion, "") {
		su := senderUnion{union: f.Args[0], side: Client, kind: Request}
		if f.Args[1] == "server" {
			su.side = Server
		}
		if f.Args[2] == "notification" {
			su.kind = Notification
		}
		out = append(out, su)
	}
	return out
}

func (d *deriver) isSenderUnion(name string) bool {
	_, ok := d.facts.lookup(FactSenderUnion, name)
	return ok
}

func (d *deriver) run() error {
	spec := d.spec
	// 1. Every definition whose method member is const declares a method.
	declared := map[string][]*Def{}
	var names []string
	for _, def := range spec.Defs {
		if def.Type.Kind != Object {
			continue
		}
		mp := findProp(def.Type, "method")
		if mp == nil || mp.Type.Kind != String || mp.Type.Const == nil {
			continue
		}
		name := mp.Type.Const.Str
		if declared[name] == nil {
			names = append(names, name)
		}
		declared[name] = append(declared[name], def)
	}
	sort.Strings(names)
	unions := d.senderUnions()
	listed := d.listed(unions)

	byMethod := map[string]*Method{}
	for _, name := range names {
		m, err := d.method(name, declared[name], unions, listed)
		if err != nil {
			return err
		}
		if m != nil {
			byMethod[name] = m
		}
	}
	// 2. Senders from the sender unions.
	for _, su := range unions {
		def := spec.Def(su.union)
		if def == nil {
			continue
		}
		for _, name := range unionMethodNames(spec, def) {
			m := byMethod[name]
			if m == nil || m.Kind != su.kind {
				what := fmt.Sprintf("%s lists method %q, which no definition declares", su.union, name)
				if m != nil {
					what = fmt.Sprintf("%s lists %s, which is a %s", su.union, m.Type, m.Kind)
				}
				if err := spec.warn(Warning{Class: SenderUnion, Where: spec.at(pointerOf(spec, su.union)), What: what, Fallback: "the member does not count for senders"}); err != nil {
					return err
				}
				continue
			}
			if !slices.Contains(m.Senders, su.side) {
				m.Senders = append(m.Senders, su.side)
			}
			m.SenderUnions = append(m.SenderUnions, su.union)
		}
	}
	for _, name := range names {
		m := byMethod[name]
		if m == nil {
			continue
		}
		if m.Kind == Request {
			if err := d.results(m); err != nil {
				return err
			}
		}
		if len(m.Senders) == 0 {
			if err := d.unlistedSender(m); err != nil {
				return err
			}
		}
		slices.Sort(m.Senders)
		if m.Kind == Request {
			if err := d.reply(m); err != nil {
				return err
			}
			if spec.Era() == Stateless {
				if f, ok := d.facts.lookup(FactMCPName, m.Name); ok {
					m.NameParam = f.Args[1]
				}
			}
		}
		spec.Methods = append(spec.Methods, m)
	}
	if err := d.taskID(); err != nil {
		return err
	}
	if err := d.inputRequests(); err != nil {
		return err
	}
	d.applyForbidden()
	return nil
}

// listed maps each definition to the sender unions listing it.
func (d *deriver) listed(unions []senderUnion) map[string][]string {
	out := map[string][]string{}
	for _, su := range unions {
		def := d.spec.Def(su.union)
		if def == nil {
			continue
		}
		for _, mt := range unionMembers(def) {
			if mt.Kind == Ref {
				out[mt.Ref] = append(out[mt.Ref], su.union)
			}
		}
	}
	return out
}

// method builds the method name from the definitions declaring it: its
// type (choosing one when several declare it), kind and params.
func (d *deriver) method(name string, defs []*Def, unions []senderUnion, listed map[string][]string) (*Method, error) {
	spec := d.spec
	// A sender union that is itself one message (2026 ClientNotification
	// is an inlined copy of CancelledNotification) yields to the real
	// definition.
	var cands []*Def
	for _, def := range defs {
		if !d.isSenderUnion(def.Name) {
			cands = append(cands, def)
		}
	}
	if len(cands) == 0 {
		cands = defs[:1]
	}
	primary, err := d.primary(name, cands, listed)
	if err != nil {
		return nil, err
	}
	m := &Method{Name: name, Type: primary.Name, Doc: primary.Doc}
	for _, c := range cands {
		if c != primary {
			m.Aliases = append(m.Aliases, c.Name)
		}
	}
	switch {
	case strings.HasSuffix(primary.Name, "Notification"):
		m.Kind = Notification
	case strings.HasSuffix(primary.Name, "Request"):
		m.Kind = Request
	default:
		// Neither name says: the union listing it does.
		for _, su := range unions {
			if su.union == primary.Name || slices.Contains(listed[primary.Name], su.union) {
				m.Kind = su.kind
				break
			}
		}
		if m.Kind == 0 {
			err := spec.warn(Warning{Class: NotAMessage, Where: spec.at(pointerOf(spec, primary.Name)),
				What:     fmt.Sprintf("definition %s has method %q but is named neither ...Request nor ...Notification, and no sender union lists it", primary.Name, name),
				Fallback: "a type, not a method"})
			return nil, err
		}
	}
	if pp := findProp(primary.Type, "params"); pp != nil {
		m.Params, m.ParamsRequired = pp.Type, pp.Required
	}
	return m, nil
}

// primary chooses the definition a method is served as when several
// declare it: the one a method-type fact names, else the only one whose
// result the naming rule finds, else the only one a sender union lists,
// else the first by name. Any choice but the fact's is a warning.
func (d *deriver) primary(name string, cands []*Def, listed map[string][]string) (*Def, error) {
	if len(cands) == 1 {
		return cands[0], nil
	}
	spec := d.spec
	var defNames []string
	for _, c := range cands {
		defNames = append(defNames, c.Name)
	}
	if f, ok := d.facts.lookup(FactMethodType, name); ok {
		for _, c := range cands {
			if c.Name == f.Args[1] {
				return c, nil
			}
		}
	}
	pick := func(ok func(*Def) bool) *Def {
		var found *Def
		for _, c := range cands {
			if ok(c) {
				if found != nil {
					return nil
				}
				found = c
			}
		}
		return found
	}
	rule := "the one whose result the naming rule (XRequest -> XResult) finds"
	chosen := pick(func(c *Def) bool {
		base := strings.TrimSuffix(c.Name, "Request")
		return base != c.Name && (spec.Def(base+"Result") != nil || spec.Def(base+"ResultResponse") != nil)
	})
	if chosen == nil {
		rule = "the one a sender union lists"
		chosen = pick(func(c *Def) bool { return len(listed[c.Name]) > 0 })
	}
	if chosen == nil {
		rule = "the first by name"
		chosen = cands[0]
	}
	var others []string
	for _, n := range defNames {
		if n != chosen.Name {
			others = append(others, n)
		}
	}
	err := spec.warn(Warning{
		Class:    DuplicateMethod,
		Where:    spec.at(pointerOf(spec, chosen.Name)),
		What:     fmt.Sprintf("method %q is declared by %s", name, strings.Join(defNames, " and ")),
		Fallback: fmt.Sprintf("it is served as %s (%s); %s %s the method", chosen.Name, rule, strings.Join(others, ", "), map[bool]string{true: "stays a type of its own and aliases", false: "stay types of their own and alias"}[len(others) == 1]),
		Fact:     fmt.Sprintf("method-type %s %s | WHY", name, chosen.Name),
	})
	return chosen, err
}

// results finds a request's result and alternatives.
func (d *deriver) results(m *Method) error {
	spec := d.spec
	base := strings.TrimSuffix(m.Type, "Request")
	userResult, hasUserResult := d.facts.lookup(FactResult, m.Name)
	hasUserResult = hasUserResult && userResult.User

	// 1. The revision's own XResultResponse.result.
	if rd := spec.Def(base + "ResultResponse"); rd != nil {
		m.ResultResponse = rd.Name
		refs, ok := responseResults(spec, rd)
		if ok {
			m.Result, m.Alternatives = d.mainResult(m, base, refs)
			if hasUserResult && userResult.Args[1] != m.Result {
				return d.overrideIgnored(userResult, fmt.Sprintf("%s.result says %s", rd.Name, strings.Join(refs, " | ")))
			}
			for _, f := range d.facts.all(FactAlternative, m.Name) {
				if f.User && !slices.Contains(m.Alternatives, f.Args[1]) {
					if err := d.overrideIgnored(f, fmt.Sprintf("%s.result says %s", rd.Name, strings.Join(refs, " | "))); err != nil {
						return err
					}
				}
			}
			return nil
		}
		err := spec.warn(Warning{Class: ResponseResult, Where: spec.at(pointerOf(spec, rd.Name) + "/properties/result"),
			What:     fmt.Sprintf("%s.result is not a reference to a definition or a union of such references", rd.Name),
			Fallback: "the result of " + m.Name + " comes from the naming rule and the facts"})
		if err != nil {
			return err
		}
	}
	// 2. The naming rules; 3. the facts; 4. the fallback.
	switch f, ok := d.facts.lookup(FactResult, m.Name); {
	case d.namedResult(m) != "":
		m.Result = d.namedResult(m)
		if hasUserResult && userResult.Args[1] != m.Result {
			if err := d.overrideIgnored(userResult, "the revision defines "+m.Result); err != nil {
				return err
			}
		}
	case ok && spec.Def(f.Args[1]) != nil:
		m.Result = f.Args[1]
	default:
		m.Result = d.baseResult()
		err := spec.warn(Warning{Class: NoResult, Where: spec.at(pointerOf(spec, m.Type)),
			What:     fmt.Sprintf("request %s (%q) has no %sResultResponse, no result definition %sResult (nor one named after its params), and no fact names its result", m.Type, m.Name, base, base),
			Fallback: fmt.Sprintf("it returns %s: an open object, every member kept", m.Result),
			Fact:     fmt.Sprintf("result %s DEFINITION | WHY", m.Name)})
		if err != nil {
			return err
		}
	}
	for _, f := range d.facts.all(FactAlternative, m.Name) {
		if alt := f.Args[1]; spec.Def(alt) != nil && alt != m.Result && !slices.Contains(m.Alternatives, alt) {
			m.Alternatives = append(m.Alternatives, alt)
		}
	}
	return nil
}

// namedResult is the result the naming rules find: XResult for XRequest
// (or for another definition of the method), else YResult for a request whose params are the definition
// YRequestParams (2026 drafts' input requests ElicitationCreateRequest
// carry ElicitRequestParams, answered by ElicitResult).
func (d *deriver) namedResult(m *Method) string {
	for _, name := range append([]string{m.Type}, m.Aliases...) {
		if r := strings.TrimSuffix(name, "Request") + "Result"; d.spec.Def(r) != nil {
			return r
		}
	}
	if m.Params != nil && m.Params.Kind == Ref {
		if base, ok := strings.CutSuffix(m.Params.Ref, "RequestParams"); ok && base != "" && d.spec.Def(base+"Result") != nil {
			return base + "Result"
		}
	}
	return ""
}

// mainResult splits the results an XResultResponse admits into the main
// one — the naming rule's XResult, else the one a result fact names, else
// the first that no alternative fact names — and the alternatives, in the
// schema's order.
func (d *deriver) mainResult(m *Method, base string, refs []string) (string, []string) {
	main := ""
	switch f, ok := d.facts.lookup(FactResult, m.Name); {
	case slices.Contains(refs, base+"Result"):
		main = base + "Result"
	case ok && slices.Contains(refs, f.Args[1]):
		main = f.Args[1]
	default:
		alts := d.facts.all(FactAlternative, "")
		for _, r := range refs {
			if !slices.ContainsFunc(alts, func(f Fact) bool { return f.Args[1] == r }) {
				main = r
				break
			}
		}
		if main == "" {
			main = refs[0]
		}
	}
	var others []string
	for _, r := range refs {
		if r != main {
			others = append(others, r)
		}
	}
	return main, others
}

// responseResults reads what XResultResponse.result admits: one reference
// or a union of references.
func responseResults(spec *Spec, rd *Def) ([]string, bool) {
	t := rd.Type
	if t.Kind != Object {
		return nil, false
	}
	rp := findProp(t, "result")
	if rp == nil {
		return nil, false
	}
	switch rp.Type.Kind {
	case Ref:
		return []string{rp.Type.Ref}, true
	case AnyOf:
		var out []string
		for _, mt := range rp.Type.Union.Members {
			if mt.Kind != Ref {
				return nil, false
			}
			out = append(out, mt.Ref)
		}
		return out, true
	}
	return nil, false
}

// baseResult is the definition a request without a known result returns:
// the revision's Result, or a synthesized open object of that name.
func (d *deriver) baseResult() string {
	if d.spec.Def("Result") == nil {
		def := &Def{Name: "Result", Type: &Type{Kind: Object, Path: "/methods/fallback/Result", Additional: Open},
			Doc: Doc{Text: "Result is the base result, synthesized by mcpgen for requests whose result the revision does not name."}}
		d.spec.defs[def.Name] = def
		i := sort.Search(len(d.spec.Defs), func(i int) bool { return d.spec.Defs[i].Name >= def.Name })
		d.spec.Defs = slices.Insert(d.spec.Defs, i, def)
	}
	return "Result"
}

func (d *deriver) overrideIgnored(f Fact, because string) error {
	return d.spec.warn(Warning{Class: OverrideIgnored, Where: f.Source,
		What:     fmt.Sprintf("the fact %q does not apply: %s", f.String(), because),
		Fallback: "the revision's own statement wins"})
}

// unlistedSender decides who sends a method no sender union lists: the
// other side of the union its result is in, else a sender fact, else both.
func (d *deriver) unlistedSender(m *Method) error {
	spec := d.spec
	if m.Kind == Request {
		var sides []Side
		for _, f := range d.facts.all(FactOriginUnion, "") {
			def := spec.Def(f.Args[0])
			if def == nil {
				continue
			}
			for _, mt := range unionMembers(def) {
				if mt.Kind == Ref && mt.Ref == m.Result {
					// Results a server sends answer requests a client sends.
					side := Client
					if f.Args[1] == "client" {
						side = Server
					}
					if !slices.Contains(sides, side) {
						sides = append(sides, side)
					}
				}
			}
		}
		if len(sides) == 1 {
			m.Senders = sides
			return nil
		}
	}
	if f, ok := d.facts.lookup(FactSender, m.Name); ok {
		m.Senders = sidesOf(f.Args[1])
		return nil
	}
	m.Senders = []Side{Client, Server}
	what := fmt.Sprintf("method %q (%s) is in no sender union", m.Name, m.Type)
	if m.Kind == Request {
		what += fmt.Sprintf(", and its result %s is in neither or both of the ClientResult and ServerResult unions", m.Result)
	}
	return spec.warn(Warning{Class: UnknownSender, Where: spec.at(pointerOf(spec, m.Type)), What: what,
		Fallback: "both sides may send it",
		Fact:     fmt.Sprintf("sender %s client|server|both | WHY", m.Name)})
}

func sidesOf(s string) []Side {
	switch s {
	case "client":
		return []Side{Client}
	case "server":
		return []Side{Server}
	}
	return []Side{Client, Server}
}

// reply builds the union of a request's result and alternatives, named
// XReply.
func (d *deriver) reply(m *Method) error {
	if len(m.Alternatives) == 0 {
		return nil
	}
	spec := d.spec
	name := strings.TrimSuffix(m.Type, "Request") + "Reply"
	if spec.Def(name) != nil {
		alt := numbered(name, func(n string) bool { return spec.Def(n) != nil })
		err := spec.warn(Warning{Class: NameCollision, Where: spec.at(pointerOf(spec, name)),
			What:     fmt.Sprintf("the reply union of %s would be named %s, which is a definition", m.Name, name),
			Fallback: "the reply union is named " + alt})
		if err != nil {
			return err
		}
		name = alt
	}
	u := &Union{Name: name, Path: "/methods/" + escapePtr(m.Name) + "/reply"}
	for _, r := range append([]string{m.Result}, m.Alternatives...) {
		u.Members = append(u.Members, &Type{Kind: Ref, Ref: r, Path: u.Path})
	}
	if err := (&analyzer{spec: spec}).analyze(u); err != nil {
		w := Warning{Class: UndiscriminableUnion, Where: spec.at(pointerOf(spec, m.Type)), What: fmt.Sprintf("the replies of %s: %v", m.Name, err),
			Fallback: fmt.Sprintf("%s is answered with %s only; %s are not decoded", m.Name, m.Result, strings.Join(m.Alternatives, ", "))}
		m.Alternatives = nil
		return spec.warn(w)
	}
	m.Reply = u
	return nil
}

// taskID finds where CreateTaskResult keeps the task's id: task.taskId
// (2025-11-25), or taskId where the result is the task itself (drafts
// that declare CreateTaskResult = Result & Task).
func (d *deriver) taskID() error {
	spec := d.spec
	used := false
	for _, m := range spec.Methods {
		used = used || slices.Contains(m.Alternatives, "CreateTaskResult")
	}
	def := spec.Def("CreateTaskResult")
	if !used || def == nil {
		return nil
	}
	a := &analyzer{spec: spec}
	t := a.resolve(def.Type)
	for _, path := range [][]string{{"task", "taskId"}, {"taskId"}} {
		if p := a.findPath(t, path); p != nil && p.Required && a.resolve(p.Type).Kind == String {
			spec.TaskID = path
			return nil
		}
	}
	return spec.warn(Warning{Class: NoTaskID, Where: spec.at(pointerOf(spec, def.Name)),
		What:     "CreateTaskResult carries no required string task.taskId or taskId",
		Fallback: "typed calls treat a task handle as an unexpected reply"})
}

// inputRequests finds how a client answers the input requests of a
// multi round-trip revision: each member of InputRequest is a method (or
// an alias of one with the same params) whose result is a member of the
// union InputResponses maps keys to.
func (d *deriver) inputRequests() error {
	spec := d.spec
	ir, reqs, resps := spec.Def("InputRequest"), spec.Def("InputRequests"), spec.Def("InputResponses")
	if ir == nil || reqs == nil || resps == nil || ir.Type.Kind != AnyOf {
		return nil
	}
	a := &analyzer{spec: spec}
	var values *Type
	if rt := a.resolve(resps.Type); rt.Kind == Object && rt.Additional == Typed {
		values = a.resolve(rt.AdditionalType)
	}
	unanswered := func(what string) error {
		return spec.warn(Warning{Class: InputResponses, Where: spec.at(pointerOf(spec, "InputResponses")), What: what,
			Fallback: "a client does not answer these input requests from its handlers: typed calls report the InputRequiredResult as an unexpected reply"})
	}
	if values == nil || values.Kind != AnyOf {
		return unanswered("InputResponses is not a map whose values are a union of results")
	}
	for _, mt := range ir.Type.Union.Members {
		if mt.Kind != Ref {
			continue
		}
		var m *Method
		for _, cand := range spec.Methods {
			if cand.Kind == Request && (cand.Type == mt.Ref || slices.Contains(cand.Aliases, mt.Ref) && sameParams(spec, cand, mt.Ref)) {
				m = cand
			}
		}
		if m == nil {
			if err := unanswered(fmt.Sprintf("the input request %s is no request whose params a handler takes", mt.Ref)); err != nil {
				return err
			}
			continue
		}
		if !slices.ContainsFunc(values.Union.Members, func(v *Type) bool { return v.Kind == Ref && v.Ref == m.Result }) {
			if err := unanswered(fmt.Sprintf("the result %s of %s is not a member of the union of InputResponses' values", m.Result, m.Name)); err != nil {
				return err
			}
			continue
		}
		spec.InputRequests = append(spec.InputRequests, InputRequest{Def: mt.Ref, Method: m})
	}
	return nil
}

// sameParams reports whether the definition alias (another definition of
// m's method) has the same params definition as m, so m's handler answers
// it.
func sameParams(spec *Spec, m *Method, alias string) bool {
	d := spec.Def(alias)
	if d == nil || m.Params == nil || m.Params.Kind != Ref || d.Type.Kind != Object {
		return false
	}
	p := findProp(d.Type, "params")
	return p != nil && p.Type.Kind == Ref && p.Type.Ref == m.Params.Ref
}

// applyForbidden marks the members the forbid facts forbid.
func (d *deriver) applyForbidden() {
	for _, f := range d.facts.all(FactForbid, "") {
		def := d.spec.Def(f.Args[0])
		if def == nil || def.Type.Kind != AnyOf {
			continue
		}
		for _, m := range def.Type.Union.Members {
			if m.Kind != Ref {
				continue
			}
			if md := d.spec.Def(m.Ref); md != nil && md.Type.Kind == Object {
				for _, name := range f.Args[1:] {
					if findProp(md.Type, name) == nil && !slices.Contains(md.Type.Forbidden, name) {
						md.Type.Forbidden = append(md.Type.Forbidden, name)
						md.Type.ForbiddenWhy = f.Why
					}
				}
			}
		}
	}
}

// unionMembers lists a sender union's members: an anyOf's, or (2026
// ClientNotification) the single inlined message.
func unionMembers(d *Def) []*Type {
	if d.Type.Kind == AnyOf {
		return d.Type.Union.Members
	}
	return []*Type{d.Type}
}

// unionMethodNames lists the method strings a sender union admits.
func unionMethodNames(spec *Spec, d *Def) []string {
	var out []string
	for _, mt := range unionMembers(d) {
		t := mt
		if t.Kind == Ref {
			if rd := spec.Def(t.Ref); rd != nil {
				t = rd.Type
			}
		}
		if mp := findProp(t, "method"); mp != nil && mp.Type.Const != nil {
			out = append(out, mp.Type.Const.Str)
		}
	}
	return out
}

// pointerOf is the JSON pointer of a definition.
func pointerOf(spec *Spec, def string) string {
	key := "$defs"
	if spec.Dialect == Draft07 {
		key = "definitions"
	}
	return "/" + key + "/" + escapePtr(def)
}
