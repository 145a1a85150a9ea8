package mcp

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

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
	// StateKey authenticates the requestState of input-required results
	// (HMAC-SHA256). Servers behind a load balancer share one; default: a
	// random key per Server.
	StateKey []byte
	// StateTTL is how long a requestState stays valid (default 10 minutes).
	StateTTL time.Duration
	// DefaultLogLevel is the level below which a stateful session's log
	// messages are dropped until the client sets one (default "info").
	DefaultLogLevel string
	// ValidateToolArguments checks tools/call arguments against the tool's
	// inputSchema and structuredContent against its outputSchema, with
	// schemas compiled once and cached (default on; set DisableToolSchemas
	// to turn it off).
	DisableToolSchemas bool
	// Tasks enables tasks (the 2025-11-25 feature and the 2026
	// io.modelcontextprotocol/tasks extension); nil disables them.
	Tasks *TaskOptions
	// Skills serves a skills catalog on the stateless revisions (the
	// io.modelcontextprotocol/skills extension); nil serves none.
	Skills *SkillOptions
	// Logger receives the runtime's logs (default: discard).
	Logger *slog.Logger
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
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
	stateful  []Mount // preferred revision first (Preferred)
	stateless []Mount
	byRev     map[string]*Mount
	methods   []string // every method name, for interning
	key       []byte
	tools     toolSchemas

	mu       sync.Mutex
	sessions map[*Session]struct{}
	listens  map[*listener]struct{}
	tasks    *taskHost
	stamps   map[*Method]*Stamp // of the stateless methods; read-only
}

// NewServer returns a server for the mounted revisions.
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
	s := &Server{opts: opts, log: opts.Logger, byRev: map[string]*Mount{}, sessions: map[*Session]struct{}{}, listens: map[*listener]struct{}{}, stamps: map[*Method]*Stamp{}}
	s.key = opts.StateKey
	if len(s.key) == 0 {
		s.key = make([]byte, 32)
		if _, err := rand.Read(s.key); err != nil {
			return nil, fmt.Errorf("mcp: state key: %w", err)
		}
	}
	names := map[string]bool{}
	for i := range mounts {
		m := mounts[i]
		if m.Protocol == nil || m.Handler == nil {
			return nil, fmt.Errorf("mcp: mount %d has no protocol or handler", i)
		}
		if _, dup := s.byRev[m.Protocol.Revision]; dup {
			return nil, fmt.Errorf("mcp: revision %s mounted twice", m.Protocol.Revision)
		}
		s.byRev[m.Protocol.Revision] = &mounts[i]
		if m.Protocol.Stateless {
			s.stateless = append(s.stateless, m)
		} else {
			s.stateful = append(s.stateful, m)
		}
		for name, md := range m.Protocol.Methods {
			names[name] = true
			if m.Protocol.Stateless {
				s.stamps[md] = s.newStamp(name, md.Cacheable)
			}
		}
	}
	newestFirst := func(ms []Mount) {
		sort.Slice(ms, func(i, j int) bool { return Preferred(ms[i].Protocol.Revision, ms[j].Protocol.Revision) })
	}
	newestFirst(s.stateful)
	newestFirst(s.stateless)
	for n := range names {
		s.methods = append(s.methods, n)
	}
	sort.Strings(s.methods)
	s.tools.init(s)
	return s, nil
}

// Options returns the server's options.
func (s *Server) Options() ServerOptions { return s.opts }

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Methods lists every method of every mounted revision (for interning).
func (s *Server) Methods() []string { return s.methods }

// StatefulVersions and StatelessVersions list the mounted revisions of
// each era, preferred first: published revisions newest first, then
// drafts.
func (s *Server) StatefulVersions() []string  { return versions(s.stateful) }
func (s *Server) StatelessVersions() []string { return versions(s.stateless) }

func versions(ms []Mount) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Protocol.Revision
	}
	return out
}

// Mounted returns the mount of a revision, or nil.
func (s *Server) Mounted(revision string) *Mount { return s.byRev[revision] }

// IsModernVersion reports a version served with stateless semantics: a
// mounted stateless revision, or any version that is not a known stateful
// one (so an unknown version gets -32022 rather than legacy handling).
func (s *Server) IsModernVersion(v string) bool {
	if m := s.byRev[v]; m != nil {
		return m.Protocol.Stateless
	}
	return !slices.Contains(knownStateful, v)
}

// knownStateful are the revisions that open with initialize.
var knownStateful = []string{"2024-10-07", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

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
func (s *Server) newStamp(method string, cacheable bool) *Stamp {
	st := &Stamp{Method: method, ServerName: s.opts.Name, ServerVersion: s.opts.Version}
	if cacheable {
		p := s.cachePolicy(method)
		st.TTLMs, st.CacheScope = p.TTLMs, p.Scope
	}
	return st
}

// capabilities builds the server capabilities object for a mount: what the
// handler implements, in the members the revision knows.
func (s *Server) capabilities(m *Mount) wire.Raw {
	p := m.Protocol
	has := func(method string) bool {
		md := p.Methods[method]
		return md != nil && md.Implemented != nil && md.Implemented(m.Handler)
	}
	knows := func(member string) bool { return slices.Contains(p.ServerCapabilities, member) }
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	listChanged := func() {
		if s.opts.ListChanged {
			e.FieldRaw(`"listChanged":`)
			e.Bool(true)
		}
	}
	if knows("completions") && has("completion/complete") {
		e.FieldRaw(`"completions":`)
		e.Raw(emptyObject)
	}
	exts := s.opts.Extensions
	skillsOn := s.opts.Skills != nil && s.opts.Skills.Catalog != nil && p.Stateless
	if (s.opts.Tasks != nil || skillsOn) && p.Stateless {
		exts = map[string]wire.Raw{}
		if s.opts.Tasks != nil {
			exts[TasksExtension] = emptyObject
		}
		if skillsOn {
			exts[skills.Extension] = s.opts.Skills.capability()
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
	if knows("logging") && !p.Stateless {
		e.FieldRaw(`"logging":`)
		e.Raw(emptyObject)
	}
	if knows("prompts") && has("prompts/list") {
		e.FieldRaw(`"prompts":`)
		e.ObjectStart()
		listChanged()
		e.ObjectEnd()
	}
	if knows("resources") && (skillsOn || has("resources/list") || has("resources/templates/list") || has("resources/read")) {
		e.FieldRaw(`"resources":`)
		e.ObjectStart()
		e.FieldRaw(`"subscribe":`)
		e.Bool(true)
		listChanged()
		e.ObjectEnd()
	}
	if knows("tasks") && s.opts.Tasks != nil && has("tools/call") {
		e.FieldRaw(`"tasks":`)
		e.Raw(wire.Raw(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`))
	}
	if knows("tools") && has("tools/list") {
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

// encodeImplementation encodes an Implementation object (serverInfo,
// clientInfo); an empty title is left out.
func encodeImplementation(e *wire.Encoder, name, title, version string) {
	e.ObjectStart()
	e.FieldRaw(`"name":`)
	e.Str(name)
	if title != "" {
		e.FieldRaw(`"title":`)
		e.Str(title)
	}
	e.FieldRaw(`"version":`)
	e.Str(version)
	e.ObjectEnd()
}
