package mcp

import (
	"context"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/skills"
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
	// compiled once and cached.
	DisableToolSchemas bool
	// ValidateResults chooses whether the results handlers return are
	// checked against the revision's schema (their generated Validate)
	// before they are sent; one that breaks it is answered -32603 and its
	// violations logged. The default, ValidateResultsAuto, checks
	// (ValidateResultsOff turns it off; see the benchmark
	// ToolsCallRoundTrip/.../validated for what it costs).
	ValidateResults ResultValidation
	// Tasks enables tasks (the 2025-11-25 feature and the 2026
	// io.modelcontextprotocol/tasks extension); nil disables them.
	Tasks *TaskOptions
	// Skills serves a skills catalog on the stateless revisions (the
	// io.modelcontextprotocol/skills extension); nil serves none.
	Skills *SkillOptions
	// Catalog serves tools, prompts and resources declared in Go on every
	// mounted revision (runtime/features, with code mcpgen tools
	// generates), before the handlers; nil serves none. With a catalog
	// the server declares listChanged.
	Catalog Catalog
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
	opts      ServerOptions
	log       *slog.Logger
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
	key      []byte
	// stateAEAD seals requestState (state.go), from key; openAEAD opens
	// it: stateAEAD, then those of the PreviousStateKeys.
	stateAEAD cipher.AEAD
	openAEAD  []cipher.AEAD
	tools     toolSchemas
	states    stateLedger
	validate  bool // ValidateResults resolved
	// eras are the implementations of the eras, by protocol.Era.
	eras [protocol.Stateless + 1]era
	// incoming and outgoing are the middleware chains of what the server
	// receives and sends, nil without middleware; recover reports the
	// recovery from panics, built into Exchange.Serve when there is no
	// chain.
	incoming, outgoing MessageHandler
	recover            bool

	mu       sync.Mutex
	sessions map[*Session]struct{}
	listens  map[*listener]struct{}
	tasks    *taskHost
	stamps   map[*protocol.Method]*protocol.Stamp // of the stateless methods; read-only

	// instance names this server on its Broadcast; stopBroadcast ends
	// the subscription.
	instance      string
	stopBroadcast context.CancelFunc
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
	s := &Server{opts: opts, log: opts.Logger, byRev: map[string]*mounted{}, roles: map[string]protocol.Role{}, nameKeys: []string{"name"},
		sessions: map[*Session]struct{}{}, listens: map[*listener]struct{}{}, stamps: map[*protocol.Method]*protocol.Stamp{}}
	s.states.now = opts.Now
	s.eras[protocol.Stateful], s.eras[protocol.Stateless] = statefulEra{}, statelessEra{}
	s.recover = !opts.NoRecovery
	mws := slices.Clone(opts.Middleware)
	if len(mws) > 0 && s.recover {
		mws = append(mws, Recovery(opts.Logger))
	}
	s.incoming, s.outgoing = chain(mws, serveFinal), chain(mws, sendFinal)
	s.validate = opts.ValidateResults.enabled()
	s.key = opts.StateKey
	if len(s.key) == 0 {
		s.key = make([]byte, 32)
		if _, err := rand.Read(s.key); err != nil {
			return nil, fmt.Errorf("mcp: state key: %w", err)
		}
	}
	aead, err := stateAEAD(s.key)
	if err != nil {
		return nil, fmt.Errorf("mcp: state key: %w", err)
	}
	s.stateAEAD = aead
	s.openAEAD = []cipher.AEAD{aead}
	for i, k := range opts.PreviousStateKeys {
		if len(k) == 0 {
			return nil, fmt.Errorf("mcp: PreviousStateKeys[%d] is empty", i)
		}
		old, err := stateAEAD(k)
		if err != nil {
			return nil, fmt.Errorf("mcp: PreviousStateKeys[%d]: %w", i, err)
		}
		s.openAEAD = append(s.openAEAD, old)
	}
	if opts.Catalog != nil {
		// A catalog's items may change while the server runs.
		s.opts.ListChanged = true
	}
	for i, mount := range mounts {
		if mount.Handler == nil && opts.Catalog != nil {
			mount.Handler = struct{}{} // the catalog serves it all
		}
		if mount.Protocol == nil || mount.Handler == nil {
			return nil, fmt.Errorf("mcp: mount %d has no protocol or handler", i)
		}
		if e := mount.Protocol.Era; e != protocol.Stateful && e != protocol.Stateless {
			return nil, fmt.Errorf("mcp: revision %s has no era (Protocol.Era): its descriptor was not generated by mcpgen", mount.Protocol.Revision)
		}
		if !mount.Protocol.Serves(true) {
			return nil, fmt.Errorf("mcp: revision %s was generated for clients only (mcpgen --side client): generate it with --side server or both to serve it", mount.Protocol.Revision)
		}
		if _, dup := s.byRev[mount.Protocol.Revision]; dup {
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
		if err := checkCatalog(opts.Catalog, mount.Protocol); err != nil {
			return nil, err
		}
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
	s.tools.init(s)
	s.watchCatalog()
	if err := s.startBroadcast(); err != nil {
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
func (s *Server) statelessVersions() []string { return versions(s.stateless) }

// supportedVersions lists every revision the server serves, those of the
// stateless era first, each era's preferred first: what -32022 and
// server/discover offer, so that a client that cannot speak the stateless
// era learns it may initialize a stateful session instead (the versioning
// page's example lists ["2026-07-28", "2025-11-25"]).
func (s *Server) supportedVersions() []string { return s.supported }

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
func (s *Server) preferred() *mounted {
	var best *mounted
	for _, m := range s.byRev {
		if best == nil || protocol.Preferred(m.Protocol.Revision, best.Protocol.Revision) {
			best = m
		}
	}
	return best
}

func (s *Server) cachePolicy(method string) CachePolicy {
	if p, ok := s.opts.Cache[method]; ok {
		if p.Scope == "" {
			p.Scope = "private"
		}
		return p
	}
	return s.opts.DefaultCache
}

// newStamp is the stamp of the stateless results of method, made once per
// method when the server is built (stamps).
func (s *Server) newStamp(method string, cacheable bool) *protocol.Stamp {
	st := &protocol.Stamp{Method: method, ServerName: s.opts.Name, ServerVersion: s.opts.Version}
	if cacheable {
		p := s.cachePolicy(method)
		st.TTLMs, st.CacheScope = p.TTLMs, p.Scope
	}
	return st
}

// capabilities builds the server capabilities object for a mount: what the
// handler implements, in the members the revision knows.
func (s *Server) capabilities(m *mounted) wire.Raw {
	p := m.Protocol
	has := func(r protocol.Role) bool { return s.serves(m, r) }
	knows := p.Knows
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	listChanged := func() {
		if s.opts.ListChanged {
			e.FieldRaw(`"listChanged":`)
			e.Bool(true)
		}
	}
	if knows("completions") && has(protocol.RoleComplete) {
		e.FieldRaw(`"completions":`)
		e.Raw(emptyObject)
	}
	// The extensions the runtime serves exist where the revision has
	// capability extensions.
	exts := s.opts.Extensions
	skillsOn := m.skills
	var catalogExts map[string]wire.Raw
	if ce, ok := s.opts.Catalog.(interface{ Extensions() map[string]wire.Raw }); ok {
		catalogExts = ce.Extensions() // an MCP App's, say
	}
	if m.tasksExtension || skillsOn || len(catalogExts) > 0 {
		exts = map[string]wire.Raw{}
		if m.tasksExtension {
			exts[protocol.TasksExtension] = emptyObject
		}
		if skillsOn {
			exts[skills.Extension] = s.opts.Skills.capability()
		}
		for k, v := range catalogExts {
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
	if knows("resources") && (skillsOn || has(protocol.RoleResourcesList) || has(protocol.RoleResourceTemplatesList) || has(protocol.RoleResourcesRead)) {
		e.FieldRaw(`"resources":`)
		e.ObjectStart()
		e.FieldRaw(`"subscribe":`)
		e.Bool(true)
		listChanged()
		e.ObjectEnd()
	}
	if knows("tasks") && s.opts.Tasks != nil && has(protocol.RoleToolsCall) {
		e.FieldRaw(`"tasks":`)
		e.Raw(wire.Raw(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`))
	}
	if knows("tools") && has(protocol.RoleToolsList) {
		e.FieldRaw(`"tools":`)
		e.ObjectStart()
		listChanged()
		e.ObjectEnd()
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
func (s *Server) implementation(e *wire.Encoder) {
	encodeImplementation(e, s.opts.Name, s.opts.Title, s.opts.Version)
}

// implementationFor encodes the server's Implementation in revision p's
// shape: no title where its Implementation has none (before 2025-06-18).
func (s *Server) implementationFor(e *wire.Encoder, p *protocol.Protocol) {
	title := s.opts.Title
	if p.KnowsMembers() && !p.Has("Implementation", "title") {
		title = ""
	}
	encodeImplementation(e, s.opts.Name, title, s.opts.Version)
}
