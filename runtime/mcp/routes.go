package mcp

import (
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Routing. NewServer builds one route table per mounted revision from its
// generated method table: a method the runtime answers (its entry names a
// Feature) is routed to the runtime's implementation of its Role, a method
// a handler answers to the generated Serve, and the extensions the server
// enables add the methods no schema lists. The eras then look a message's
// method up in the table of the revision it is served with; nothing
// switches on method names.

// route is how one method of one mounted revision is served.
type route struct {
	method *Method
	// serve answers the method; nil when nothing does (-32601, a
	// notification is dropped).
	serve routeFunc
	// catalog reports a method the server's Catalog serves first.
	catalog bool
}

// routeFunc serves one request or notification.
type routeFunc func(rc *reqCtx) (wire.Marshaler, error)

// mounted is a revision as a server serves it.
type mounted struct {
	Mount
	routes map[string]*route
	// tasks is the design of tasks of the revision: the 2026 extension on
	// revisions with capability extensions and no tasks methods of their
	// own, else the core design of 2025-11-25 (which also words the errors
	// of revisions without tasks). tasksOn reports tasks served (the
	// server has them on and the revision has them), tasksExtension the
	// extension declared in the capabilities.
	tasks          taskDesign
	tasksOn        bool
	tasksExtension bool
	// skills reports the skills extension served on the revision.
	skills bool
}

// featureRoute is the runtime's implementation of one role: in a stateful
// session and for a stateless request (nil: the role does not exist in
// that era, and the method is not served).
type featureRoute struct {
	feature   Feature
	session   routeFunc
	stateless routeFunc
}

// featureRoutes are the runtime's routes by role. A role a generated table
// gives to the runtime that is not here (or under another feature) makes
// NewServer fail.
var featureRoutes = map[Role]featureRoute{
	RoleInitialize:  {FeatureLifecycle, serveInitialize, nil},
	RoleInitialized: {FeatureLifecycle, serveInitialized, nil},
	RolePing:        {FeatureLifecycle, servePing, nil},
	RoleCancelled:   {FeatureLifecycle, serveCancelled, nil},
	RoleProgress:    {FeatureLifecycle, serveNothing, nil},
	RoleSetLevel:    {FeatureLogging, serveSetLevel, nil},
	RoleSubscribe:   {FeatureSubscriptions, serveSubscribe, nil},
	RoleUnsubscribe: {FeatureSubscriptions, serveSubscribe, nil},
	RoleDiscover:    {FeatureDiscover, nil, serveDiscover},
	RoleListen:      {FeatureListen, nil, serveListen},
	RoleTaskGet:     {FeatureTasks, serveTask, serveTask},
	RoleTaskResult:  {FeatureTasks, serveTask, serveTask},
	RoleTaskList:    {FeatureTasks, serveTask, serveTask},
	RoleTaskCancel:  {FeatureTasks, serveTask, serveTask},
	RoleTaskUpdate:  {FeatureTasks, serveTask, serveTask},
	RoleTaskStatus:  {FeatureTasks, nil, nil}, // a requestor's own status notifications: nothing to do
}

// legacyInitialize is the request that opens a stateful session in every
// revision before 2026-07-28. A server that mounts none of those still
// answers it, with the versions it supports, so it must know its name
// without a method table that has it.
const legacyInitialize = "initialize"

// The methods of the extensions the runtime serves, which no schema lists:
// the runtime's own table entries for them, read as a generated table is.
var (
	// The io.modelcontextprotocol/tasks extension (SEP-2663), on revisions
	// with capability extensions and no tasks of their own.
	extTaskGet    = &Method{Name: "tasks/get", FromClient: true, NameParam: "taskId", Role: RoleTaskGet, Feature: FeatureTasks}
	extTaskUpdate = &Method{Name: "tasks/update", FromClient: true, NameParam: "taskId", Role: RoleTaskUpdate, Feature: FeatureTasks}
	extTaskCancel = &Method{Name: "tasks/cancel", FromClient: true, NameParam: "taskId", Role: RoleTaskCancel, Feature: FeatureTasks}
	// The io.modelcontextprotocol/skills extension (SEP-2640); it reads
	// skill files with the revision's resources/read.
	extSkillsList    = &Method{Name: "skills/list", FromClient: true, Role: RoleSkillsList, Feature: FeatureSkills}
	extSkillsGet     = &Method{Name: "skills/get", FromClient: true, Role: RoleSkillsGet, Feature: FeatureSkills}
	extDirectoryRead = &Method{Name: "resources/directory/read", FromClient: true, Role: RoleDirectoryRead, Feature: FeatureSkills}
	// extSkillsRead is resources/read, for a revision that has none.
	extSkillsRead = &Method{Name: skillsReadMethod, FromClient: true, Role: RoleResourcesRead}
)

// extensionMethods are the extensions' methods, for lookups by name.
var extensionMethods = []*Method{extTaskGet, extTaskUpdate, extTaskCancel, extSkillsList, extSkillsGet, extDirectoryRead}

// skillsReadMethod is the method skills clients read a skill's files with
// (resources/read of the revision the extension is defined on).
const skillsReadMethod = "resources/read"

// mount builds the route table of a mounted revision.
func (s *Server) mount(mount Mount) (*mounted, error) {
	p := mount.Protocol
	m := &mounted{Mount: mount, routes: make(map[string]*route, len(p.Methods))}
	// The era decides which of the runtime's implementations serve.
	pick := func(f featureRoute) routeFunc { return f.session }
	if p.Stateless {
		pick = func(f featureRoute) routeFunc { return f.stateless }
	}
	hasTasks := false
	for name, md := range p.Methods {
		rt := &route{method: md}
		switch {
		case md.Feature != FeatureNone:
			f, ok := featureRoutes[md.Role]
			if !ok || f.feature != md.Feature {
				return nil, fmt.Errorf("mcp: revision %s: the runtime has no route for %s, which its method table gives to the runtime's %s feature: the package was generated by a newer mcpgen than this runtime", p.Revision, name, md.Feature)
			}
			rt.serve = pick(f)
			hasTasks = hasTasks || md.Feature == FeatureTasks
		case md.Serve != nil || s.catalogRoute(md):
			rt.serve = s.serveHandler
			rt.catalog = s.catalogRoute(md)
		}
		m.routes[name] = rt
	}
	knows := slices.Contains(p.ServerCapabilities, "extensions")
	m.tasks = coreTasks{p.Tasks}
	if knows && !hasTasks {
		m.tasks = extensionTasks{}
	}
	switch {
	case s.opts.Tasks == nil:
	case hasTasks && p.Tasks == nil:
		return nil, fmt.Errorf("mcp: revision %s has tasks but its generated package has no task encoders (TaskCodec): generate it again, or turn tasks off", p.Revision)
	case hasTasks:
		m.tasksOn = true
	case knows:
		m.tasksOn, m.tasksExtension = true, true
		for _, md := range []*Method{extTaskGet, extTaskUpdate, extTaskCancel} {
			m.routes[md.Name] = &route{method: md, serve: pick(featureRoutes[md.Role])}
		}
	}
	if s.opts.Skills != nil && s.opts.Skills.Catalog != nil && knows {
		m.skills = true
		s.routeSkills(m)
	}
	for name, rt := range m.routes {
		if prev, ok := s.roles[name]; !ok || prev == RoleNone {
			s.roles[name] = rt.method.Role
		}
		if p.Stamp != nil {
			s.stamps[rt.method] = s.newStamp(name, rt.method.Cacheable)
		}
	}
	// The classifier reads every member Mcp-Name may mirror, of the
	// revision's methods and of the extensions' (whose headers are checked
	// whether or not the server serves them).
	mirrored := func(md *Method) {
		if np := md.NameParam; np != "" && !slices.Contains(s.nameKeys, np) {
			s.nameKeys = append(s.nameKeys, np)
		}
	}
	for _, md := range p.Methods {
		mirrored(md)
	}
	if knows {
		for _, md := range extensionMethods {
			mirrored(md)
		}
	}
	return m, nil
}

// serveNothing answers a notification that needs no action.
func serveNothing(*reqCtx) (wire.Marshaler, error) { return nil, nil }

// serveHandler serves a method with the mounted handler.
func (s *Server) serveHandler(rc *reqCtx) (wire.Marshaler, error) {
	defer rc.r.finish()
	return s.serve(rc)
}
