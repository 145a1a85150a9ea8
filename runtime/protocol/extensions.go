package protocol

import "slices"

// The extensions the runtime serves on revisions with capability
// extensions, which no schema lists: their identifiers and the runtime's
// own table entries for their methods, read as a generated table is.
const (
	// TasksExtension identifies the 2026 tasks extension (SEP-2663).
	TasksExtension = "io.modelcontextprotocol/tasks"
	// SkillsExtension identifies the skills extension (SEP-2640).
	SkillsExtension = "io.modelcontextprotocol/skills"
)

var (
	// The io.modelcontextprotocol/tasks extension, on revisions with
	// capability extensions and no tasks of their own.
	extTaskGet    = &Method{Name: "tasks/get", FromClient: true, NameParam: "taskId", Role: RoleTaskGet, Feature: FeatureTasks}
	extTaskUpdate = &Method{Name: "tasks/update", FromClient: true, NameParam: "taskId", Role: RoleTaskUpdate, Feature: FeatureTasks}
	extTaskCancel = &Method{Name: "tasks/cancel", FromClient: true, NameParam: "taskId", Role: RoleTaskCancel, Feature: FeatureTasks}
	// The io.modelcontextprotocol/skills extension; it reads skill files
	// with the revision's resources/read.
	extSkillsList    = &Method{Name: "skills/list", FromClient: true, Role: RoleSkillsList, Feature: FeatureSkills, Cacheable: true}
	extSkillsGet     = &Method{Name: "skills/get", FromClient: true, Role: RoleSkillsGet, Feature: FeatureSkills, Cacheable: true}
	extDirectoryRead = &Method{Name: "resources/directory/read", FromClient: true, Role: RoleDirectoryRead, Feature: FeatureSkills, Cacheable: true}
	// extSkillsRead is resources/read, for a revision that has none.
	extSkillsRead = &Method{Name: "resources/read", FromClient: true, Role: RoleResourcesRead, Cacheable: true}
)

// extensionMethods are the extensions' methods, for lookups by name.
var extensionMethods = []*Method{extTaskGet, extTaskUpdate, extTaskCancel, extSkillsList, extSkillsGet, extDirectoryRead}

// TasksExtensionMethods returns the table entries of the tasks
// extension's methods: tasks/get, tasks/update and tasks/cancel. They
// must not be modified.
func TasksExtensionMethods() []*Method { return []*Method{extTaskGet, extTaskUpdate, extTaskCancel} }

// SkillsExtensionMethods returns the table entries of the skills
// extension's methods: skills/list, skills/get and
// resources/directory/read, and the resources/read the extension reads
// skill files with on a revision that has none. They must not be modified.
func SkillsExtensionMethods() (list, get, directoryRead, read *Method) {
	return extSkillsList, extSkillsGet, extDirectoryRead, extSkillsRead
}

// ExtensionMethods returns the table entries of every extension method
// the runtime serves (Protocol.Lookup finds them). They must not be
// modified.
func ExtensionMethods() []*Method { return slices.Clone(extensionMethods) }
