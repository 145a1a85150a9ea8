package schema

import (
	"fmt"
	"strings"
)

// Class names one kind of fact the loader could not derive from a
// revision. Each class has one documented fallback (see Classes); a warning
// of that class says where it happened and what was done instead.
type Class string

// The classes of warnings. docs/upgrading.md ("Upgrading to a new revision")
// explains each with an example.
const (
	// UnknownSender: a method is in no sender union (ClientRequest,
	// ServerNotification...) and its result in no ClientResult or
	// ServerResult union. Fallback: both sides may send it.
	UnknownSender Class = "unknown-sender"
	// NoResult: a request whose result neither its XResultResponse, the
	// naming rule (XRequest -> XResult) nor a fact names. Fallback: the base
	// Result definition (an open object), or any JSON object.
	NoResult Class = "no-result"
	// ResponseResult: an XResultResponse whose result the loader cannot
	// read (an inline type, not references to definitions). Fallback: the
	// naming rule and the facts, as for a revision without XResultResponse.
	ResponseResult Class = "response-result"
	// DuplicateMethod: several definitions declare one method. Fallback:
	// one is the method's type (the one a JSON-RPC sender union lists, else
	// the one whose result the naming rule finds, else the first by name);
	// the others stay types of their own and are aliases of the method.
	DuplicateMethod Class = "duplicate-method"
	// NotAMessage: a definition has a const method member but is named
	// neither ...Request nor ...Notification and no sender union lists it.
	// Fallback: it is a type, not a method.
	NotAMessage Class = "not-a-message"
	// SenderUnion: a sender union lists a member that is no message of its
	// kind. Fallback: the member is ignored for senders.
	SenderUnion Class = "sender-union"
	// TSJSONMismatch: schema.ts and schema.json disagree on a member's
	// presence, requiredness or type. Fallback: schema.json decides the
	// structure (it is what peers validate against); schema.ts only refines
	// what JSON cannot say.
	TSJSONMismatch Class = "ts-json-mismatch"
	// TSOnlyDeclaration: schema.ts exports a type schema.json does not
	// define. Fallback: it is left out of the model.
	TSOnlyDeclaration Class = "ts-only-declaration"
	// TSDuplicate: schema.ts declares a name twice in a way TypeScript
	// would not merge. Fallback: the first declaration stands.
	TSDuplicate Class = "ts-duplicate"
	// UnsupportedKeyword: a JSON Schema keyword, or a keyword where it has
	// no meaning for the generator (const on a boolean, a keyword beside
	// $ref). Fallback: the keyword is ignored, so the generated Validate
	// accepts more than the schema (never less).
	UnsupportedKeyword Class = "unsupported-keyword"
	// UnsupportedFormat: a format the generated validators do not check.
	// Fallback: no format check.
	UnsupportedFormat Class = "unsupported-format"
	// UnsupportedShape: a shape generated Go does not represent: an
	// optional member that may be null, named and typed additional members
	// together, more than 64 required members. Fallback: see fitShapes.
	UnsupportedShape Class = "unsupported-shape"
	// UnsupportedAllOf: an allOf whose parts are not all open objects.
	// Fallback: any JSON value, kept raw.
	UnsupportedAllOf Class = "unsupported-allof"
	// ForeignRef: a reference into the other dialect's definitions member
	// (#/definitions/X in a file that keeps its definitions in #/$defs).
	// Fallback: it resolves to the definition of that name.
	ForeignRef Class = "foreign-ref"
	// UndiscriminableUnion: no const member, JSON type or member presence
	// tells a union's members apart. Fallback: the union is any JSON value,
	// kept raw (a reply union: the method's main result only).
	UndiscriminableUnion Class = "undiscriminable-union"
	// NameCollision: two members or inline types would get the same Go
	// name. Fallback: the later one gets a numbered name.
	NameCollision Class = "name-collision"
	// NoTaskID: the revision's CreateTaskResult carries no task id (neither
	// task.taskId nor taskId). Fallback: a task handle is an unexpected
	// reply to typed calls.
	NoTaskID Class = "no-task-id"
	// InputResponses: a multi round-trip revision whose input requests a
	// client cannot answer from its handlers (InputResponses is not a map
	// of a union of the requests' results). Fallback: those requests are
	// not answered automatically; typed calls report an InputRequiredResult
	// they cannot answer.
	InputResponses Class = "input-responses"
	// DanglingRef: a $ref naming a definition the schema does not have
	// (an upstream slip). Fallback: any JSON value, kept raw; a define
	// fact states its shape.
	DanglingRef Class = "dangling-ref"
	// OverrideIgnored: a fact of --overrides contradicts what the revision
	// states itself. Fallback: the revision wins.
	OverrideIgnored Class = "override-ignored"
)

// Classes lists every class with its fallback, in a stable order: what
// documentation and summaries iterate over.
var Classes = []struct {
	Class    Class
	Fallback string
}{
	{UnknownSender, "both sides may send it"},
	{NoResult, "the base Result (an open object)"},
	{ResponseResult, "the naming rule and the facts"},
	{DuplicateMethod, "one definition is the method's type, the others its aliases"},
	{NotAMessage, "a type, not a method"},
	{SenderUnion, "the member is ignored for senders"},
	{TSJSONMismatch, "schema.json decides the structure"},
	{TSOnlyDeclaration, "left out of the model"},
	{TSDuplicate, "the first declaration stands"},
	{UnsupportedKeyword, "the keyword is ignored (Validate accepts more)"},
	{UnsupportedFormat, "no format check"},
	{UnsupportedShape, "raw JSON, unchecked members, or optional members"},
	{UnsupportedAllOf, "any JSON value, kept raw"},
	{ForeignRef, "resolved by name against the file's own definitions"},
	{DanglingRef, "any JSON value, kept raw (a define fact states its shape)"},
	{UndiscriminableUnion, "any JSON value, kept raw"},
	{NameCollision, "a numbered Go name"},
	{NoTaskID, "a task handle is an unexpected reply"},
	{InputResponses, "input requests are not answered automatically"},
	{OverrideIgnored, "the revision's own statement wins"},
}

// Warning is one fact the loader could not derive, and the fallback it
// took instead. With strict loading every warning is an error.
type Warning struct {
	Class Class
	// Where is the file and JSON pointer (file#/$defs/X) or file:line:col
	// of the place.
	Where string
	// What says what could not be derived, naming the definition or
	// method and the rule that did not settle it.
	What string
	// Fallback says what the model does instead.
	Fallback string
	// Fact, when set, is a line of an overrides file that would state the
	// missing fact and silence the warning.
	Fact string
}

func (w Warning) String() string {
	var b strings.Builder
	if w.Where != "" {
		b.WriteString(w.Where)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s [%s]; fallback: %s", w.What, w.Class, w.Fallback)
	if w.Fact != "" {
		fmt.Fprintf(&b, " (to state it: %q in --overrides)", w.Fact)
	}
	return b.String()
}

// StrictError is the error strict loading returns for the first warning.
type StrictError struct {
	Warning Warning
}

func (e *StrictError) Error() string {
	return e.Warning.String() + " (an error with --strict)"
}

// warn records a warning, or with strict loading returns it as an error.
// Every fallback goes through here, so --strict restores "stop at the
// first fact that cannot be derived".
func (s *Spec) warn(w Warning) error {
	if s.strict {
		return &StrictError{Warning: w}
	}
	s.Warnings = append(s.Warnings, w)
	return nil
}

// at is the Where of a JSON pointer in schema.json.
func (s *Spec) at(ptr string) string {
	if ptr == "" {
		return s.JSONPath
	}
	return s.JSONPath + "#" + ptr
}

// CountByClass counts warnings per class, in the order of Classes.
func CountByClass(ws []Warning) []ClassCount {
	n := map[Class]int{}
	for _, w := range ws {
		n[w.Class]++
	}
	var out []ClassCount
	for _, c := range Classes {
		if n[c.Class] > 0 {
			out = append(out, ClassCount{Class: c.Class, Count: n[c.Class]})
		}
	}
	return out
}

// ClassCount is the number of warnings of one class.
type ClassCount struct {
	Class Class
	Count int
}
