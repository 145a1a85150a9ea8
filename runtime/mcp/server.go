package mcp

import (
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/requeststate"
	"github.com/mcpgen/mcpgen/runtime/toolschema"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ServerOptions configure a Server. Name and Version are required.
type ServerOptions struct {
	// Name, Title and Version describe the server (serverInfo).
	Name, Title, Version string
	// Instructions tell clients how to use the server.
	Instructions string
	// ListChanged declares that the server announces changes to its tool,
	// prompt and resource lists (see Server.NotifyListChanged).
	ListChanged bool
	// Extensions are the server's capability extensions (2026:
	// capabilities.extensions), by name, as JSON objects.
	Extensions map[string]wire.Raw
	// Cache sets ttlMs and cacheScope of cacheable stateless results the
	// handler leaves unset, by method; methods not listed get
	// DefaultCache.
	Cache        map[string]CachePolicy
	DefaultCache CachePolicy
	// StateKey seals the requestState of input-required results: they are
	// encrypted and authenticated (AES-256-GCM under a key derived from
	// it) and bound to their request (see Request.SealState). Servers
	// behind a load balancer share one, so that the retry of a round
	// reaching another instance opens the state the first one sealed;
	// default: a random key per Server (a retry must then reach the same
	// process).
	StateKey []byte
	// PreviousStateKeys open requestState too (they never seal), for a
	// rotation of StateKey over instances that share it, in three steps:
	// every instance gets the new key here (still sealing with the old
	// one); then every instance seals with the new one (StateKey), the
	// old one here; once StateTTL has passed, the old one goes.
	PreviousStateKeys [][]byte
	// StateTTL is how long a requestState stays valid (default 10 minutes).
	StateTTL time.Duration
	// DefaultLogLevel is the level below which a stateful session's log
	// messages are dropped until the client sets one (default "info").
	DefaultLogLevel string
	// DisableToolSchemas turns off what is on by default: tools/call
	// arguments checked against the tool's inputSchema and
	// structuredContent against its outputSchema, with the schemas
	// compiled once and cached; and the arguments of a features.Set's
	// hand-built tools. Flat schemas are checked in place; the others
	// only when the program imports runtime/toolschema/fullschema: a
	// tool a handler lists is then logged to Logger (which discards by
	// default) and not checked, a Set's hand-built tool is refused.
	DisableToolSchemas bool
	// ValidateResults chooses whether the results handlers return are
	// checked against the revision's schema (their generated Validate)
	// before they are sent; one that breaks it is answered -32603 and its
	// violations logged. The default, ValidateResultsAuto, checks
	// (ValidateResultsOff turns it off; see the benchmark
	// ToolsCallRoundTrip/.../validated for what it costs).
	ValidateResults ResultValidation
	// Features serve what the engine does not, above it (see Feature):
	// tools, prompts and resources declared in Go (runtime/features, with
	// code mcpgen tools generates), subscriptions/listen streams
	// (runtime/listen), skills (runtime/skills). The first wraps the
	// others: its steps see a request before theirs.
	Features []Feature
	// Broadcast shares list changes and resource updates with the other
	// instances of this server (nil: this process only); Server.Close
	// ends the subscription.
	Broadcast Broadcast
	// Middleware wraps every message the server receives and sends (see
	// Middleware); the first wraps the others.
	Middleware []Middleware
	// OnSessionEnd, when set, learns of each stateful session that ends
	// (session metrics, say).
	OnSessionEnd func(SessionEnd)
	// NoRecovery turns off the recovery from panics the server installs
	// innermost (see Recovery): a panicking handler then crashes the
	// process.
	NoRecovery bool
	// Logger receives the runtime's logs (default: discard).
	Logger *slog.Logger
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

// Mount is one revision mounted on a server or client: its descriptor
// (the generated package's Protocol()) and the value that implements its
// methods. Generated packages make it: v20251125.Mount(handler).
type Mount struct {
	Protocol *protocol.Protocol
	Handler  any
}

// CachePolicy is the ttlMs and cacheScope of a cacheable result.
type CachePolicy struct {
	TTLMs int64
	// Scope is "public" or "private" (default "private").
	Scope string
}

// Server serves the revisions mounted on it over any number of sessions and
// transports.
type Server struct {
	opts ServerOptions
	log  *slog.Logger
	// revisions are the revisions mounted, with their route tables; chains
	// the middleware.
	revisions
	chains
	tools    toolschema.Tools     // what the tool checks learned (toolschema.go)
	states   *requeststate.Sealer // seals and opens requestState (state.go)
	validate bool                 // ValidateResults resolved
	// eras are the implementations of the eras, by protocol.Era.
	eras [protocol.Stateless + 1]era

	// feats is what the features declared (feature.go); ann the
	// announcements and streams (announce.go).
	feats features
	ann   announcer

	mu       sync.Mutex
	sessions map[*Session]struct{}
}

// revisions are the revisions a server mounts: each one's route table,
// and what the engine reads from all of them to pick a message's era and
// classify it. Read-only once NewServer returns.
type revisions struct {
	stateful  []*mounted // preferred revision first (Preferred)
	stateless []*mounted
	// supported lists every revision served (supportedVersions).
	supported []string
	byRev     map[string]*mounted
	methods   []string                 // every method name, for interning
	roles     map[string]protocol.Role // every method name's role, over the mounts
	// nameKeys are the params members the classifier reads as strings:
	// params.name (the tool of a tools/call) first, then every member the
	// Mcp-Name header mirrors in a mounted revision.
	nameKeys []string
	// stamps are what the stateless methods' results carry (the revision's
	// Stamp).
	stamps map[*protocol.Method]*protocol.Stamp
}

// NewServer returns a server for the mounted revisions. It builds the
// route table of each from its generated method table and fails when a
// method that table gives to the runtime has no route here (a table
// generated by an mcpgen that knows a feature this runtime lacks), or when
// a handler has a method of a revision's name with another signature.
func NewServer(opts ServerOptions, mounts ...Mount) (*Server, error) {
	if opts.Name == "" || opts.Version == "" {
		return nil, fmt.Errorf("mcp: ServerOptions needs Name and Version")
	}
	if len(mounts) == 0 {
		return nil, fmt.Errorf("mcp: no revision mounted")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.StateTTL == 0 {
		opts.StateTTL = 10 * time.Minute
	}
	if opts.DefaultLogLevel == "" {
		opts.DefaultLogLevel = "info"
	}
	if opts.DefaultCache.Scope == "" {
		opts.DefaultCache.Scope = "private"
	}
	s := &Server{opts: opts, log: opts.Logger, sessions: map[*Session]struct{}{},
		revisions: revisions{byRev: map[string]*mounted{}, roles: map[string]protocol.Role{}, nameKeys: []string{"name"}, stamps: map[*protocol.Method]*protocol.Stamp{}}}
	s.ann.srv = s
	s.eras[protocol.Stateful], s.eras[protocol.Stateless] = statefulEra{}, statelessEra{}
	s.chains = newChains(opts.Middleware, !opts.NoRecovery, opts.Logger, s.roles)
	s.validate = opts.ValidateResults.enabled()
	states, err := requeststate.New(requeststate.Options{Key: opts.StateKey, Previous: opts.PreviousStateKeys, TTL: opts.StateTTL, Now: opts.Now})
	if err != nil {
		return nil, fmt.Errorf("mcp: StateKey, PreviousStateKeys: %w", err)
	}
	s.states = states
	var revs []*protocol.Protocol
	mounts = slices.Clone(mounts)
	for i := range mounts {
		mount := &mounts[i]
		if mount.Handler == nil {
			mount.Handler = struct{}{} // the features serve it all, if any
		}
		if mount.Protocol == nil {
			return nil, fmt.Errorf("mcp: mount %d has no protocol", i)
		}
		// The revision as a server uses it: with what only a server
		// receives (Protocol.ServerTable), which clients do not link.
		mount.Protocol = mount.Protocol.ForServer()
		if e := mount.Protocol.Era; e != protocol.Stateful && e != protocol.Stateless {
			return nil, fmt.Errorf("mcp: revision %s has no era (Protocol.Era): its descriptor was not generated by mcpgen", mount.Protocol.Revision)
		}
		if !mount.Protocol.Serves(true) {
			return nil, fmt.Errorf("mcp: revision %s was generated for clients only (mcpgen --side client): generate it with --side server or both to serve it", mount.Protocol.Revision)
		}
		if slices.ContainsFunc(revs, func(p *protocol.Protocol) bool { return p.Revision == mount.Protocol.Revision }) {
			return nil, fmt.Errorf("mcp: revision %s mounted twice (a draft generated from a schema that declares a published revision's version negotiates that version: generate it with mcpgen --protocol-version to give it one of its own)", mount.Protocol.Revision)
		}
		if err := protocol.CheckHandler(mount.Protocol, mount.Handler, func(md *protocol.Method) bool { return md.FromClient }); err != nil {
			return nil, err
		}
		if b, ok := mount.Handler.(interface{ CheckHandlers() error }); ok {
			if err := b.CheckHandlers(); err != nil {
				return nil, err
			}
		}
		revs = append(revs, mount.Protocol)
	}
	if err := s.attach(opts.Features, revs); err != nil {
		return nil, err
	}
	for _, mount := range mounts {
		m, err := s.mount(mount)
		if err != nil {
			return nil, err
		}
		s.byRev[mount.Protocol.Revision] = m
		if mount.Protocol.Stateless() {
			s.stateless = append(s.stateless, m)
		} else {
			s.stateful = append(s.stateful, m)
		}
	}
	newestFirst := func(ms []*mounted) {
		sort.Slice(ms, func(i, j int) bool { return protocol.Preferred(ms[i].Protocol.Revision, ms[j].Protocol.Revision) })
	}
	newestFirst(s.stateful)
	newestFirst(s.stateless)
	s.supported = versions(append(slices.Clone(s.stateless), s.stateful...))
	for n := range s.roles {
		s.methods = append(s.methods, n)
	}
	sort.Strings(s.methods)
	if s.opts.ListChanged {
		for _, m := range s.stateless {
			if md := m.Protocol.Role(protocol.RoleListen); md != nil && !m.serves(protocol.RoleListen) {
				s.log.Warn("mcp: the server announces list changes, but revision " + m.Protocol.Revision + " carries them only on subscriptions/listen streams, which no feature serves: add listen.Feature (runtime/listen) to ServerOptions.Features; meanwhile its capabilities declare no listChanged")
			}
		}
	}
	if s.validate {
		for _, m := range append(slices.Clone(s.stateful), s.stateless...) {
			if generatedBefore14(m.Protocol) {
				s.log.Warn("mcp: revision " + m.Protocol.Revision + "'s package was generated by an mcpgen older than its runtime (before generated-code version 14): the results it serves are not validated; regenerate it (go generate)")
			}
		}
	}
	if err := s.ann.start(); err != nil {
		return nil, fmt.Errorf("mcp: subscribing to the other instances' announcements: %w", err)
	}
	return s, nil
}

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Methods lists every method of every mounted revision (for interning).
func (s *Server) Methods() []string { return s.methods }

// statelessVersions lists the mounted revisions of the stateless era,
// preferred first: published revisions newest first, then drafts.
func (r *revisions) statelessVersions() []string { return versions(r.stateless) }

// supportedVersions lists every revision the server serves, those of the
// stateless era first, each era's preferred first: what -32022 and
// server/discover offer, so that a client that cannot speak the stateless
// era learns it may initialize a stateful session instead (the versioning
// page's example lists ["2026-07-28", "2025-11-25"]).
func (r *revisions) supportedVersions() []string { return r.supported }

func versions(ms []*mounted) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Protocol.Revision
	}
	return out
}

// NoID is how an error response that cannot name its request writes its
// id in revision version (see Protocol.NoID); for a version not mounted,
// as the server's preferred revision does.
func (s *Server) NoID(version string) jsonrpc.NoID {
	if m := s.byRev[version]; m != nil {
		return m.Protocol.NoID
	}
	return s.preferred().Protocol.NoID
}

// preferred is the mounted revision preferred as a default.
func (r *revisions) preferred() *mounted {
	var best *mounted
	for _, m := range r.byRev {
		if best == nil || protocol.Preferred(m.Protocol.Revision, best.Protocol.Revision) {
			best = m
		}
	}
	return best
}

func (o *ServerOptions) cachePolicy(method string) CachePolicy {
	if p, ok := o.Cache[method]; ok {
		if p.Scope == "" {
			p.Scope = "private"
		}
		return p
	}
	return o.DefaultCache
}

// newStamp is the stamp of the stateless results of method, made once per
// method when the server is built (stamps).
func (o *ServerOptions) newStamp(method string, cacheable bool) *protocol.Stamp {
	st := &protocol.Stamp{Method: method, ServerName: o.Name, ServerVersion: o.Version}
	if cacheable {
		p := o.cachePolicy(method)
		st.TTLMs, st.CacheScope = p.TTLMs, p.Scope
	}
	return st
}

// capabilities builds the server capabilities object for a mount: what the
// handler and the features serve, in the members the revision knows.
func (s *Server) capabilities(m *mounted) wire.Raw {
	p := m.Protocol
	has := m.serves
	knows := p.Knows
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	// A stateless revision announces list changes only on listen streams:
	// without a feature serving them it has none to declare.
	lc := s.opts.ListChanged && (p.Era == protocol.Stateful || m.serves(protocol.RoleListen))
	listChanged := func() {
		if lc {
			e.FieldRaw(`"listChanged":`)
			e.Bool(true)
		}
	}
	if knows("completions") && has(protocol.RoleComplete) {
		e.FieldRaw(`"completions":`)
		e.Raw(emptyObject)
	}
	// The extensions exist where the revision has capability extensions:
	// the features' (tasks, skills, an MCP App's) and the server's own.
	fc := s.feats.featureCaps(m)
	exts := s.opts.Extensions
	if len(fc.Extensions) > 0 {
		exts = map[string]wire.Raw{}
		for k, v := range fc.Extensions {
			exts[k] = v
		}
		for k, v := range s.opts.Extensions {
			exts[k] = v
		}
	}
	if knows("extensions") && len(exts) > 0 {
		e.FieldRaw(`"extensions":`)
		e.ObjectStart()
		for _, name := range sortedKeys(exts) {
			e.Field(name)
			e.Raw(exts[name])
		}
		e.ObjectEnd()
	}
	// Logging is declared where the client sets the level for its session;
	// stateless requests state their level each.
	if knows("logging") && p.Role(protocol.RoleSetLevel) != nil {
		e.FieldRaw(`"logging":`)
		e.Raw(emptyObject)
	}
	if knows("prompts") && has(protocol.RolePromptsList) {
		e.FieldRaw(`"prompts":`)
		e.ObjectStart()
		listChanged()
		e.ObjectEnd()
	}
	if knows("resources") && (has(protocol.RoleResourcesList) || has(protocol.RoleResourceTemplatesList) || has(protocol.RoleResourcesRead)) {
		e.FieldRaw(`"resources":`)
		e.ObjectStart()
		e.FieldRaw(`"subscribe":`)
		e.Bool(true)
		listChanged()
		e.ObjectEnd()
	}
	if knows("tools") && has(protocol.RoleToolsList) {
		e.FieldRaw(`"tools":`)
		e.ObjectStart()
		listChanged()
		e.ObjectEnd()
	}
	for _, name := range sortedKeys(fc.Members) {
		if knows(name) {
			e.Field(name)
			e.Raw(fc.Members[name])
		}
	}
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// implementation encodes the server's Implementation object.
func (o *ServerOptions) implementation(e *wire.Encoder) {
	encodeImplementation(e, o.Name, o.Title, o.Version)
}

// implementationFor encodes the server's Implementation in revision p's
// shape: no title where its Implementation has none (before 2025-06-18).
func (o *ServerOptions) implementationFor(e *wire.Encoder, p *protocol.Protocol) {
	title := o.Title
	if p.KnowsMembers() && !p.Has("Implementation", "title") {
		title = ""
	}
	encodeImplementation(e, o.Name, title, o.Version)
}

// generatedBefore14 reports a revision whose package was generated before
// version 14 of the contract: its table has result types (NewResult) but
// neither decodes (DecodeResult) nor validates (ValidateResult) them
// through their methods, so the server does not validate its results.
func generatedBefore14(p *protocol.Protocol) bool {
	for _, md := range p.Methods {
		if md.NewResult != nil {
			return md.DecodeResult == nil
		}
	}
	return false
}
