package gen

import (
	_ "embed"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// BridgeTable is the reviewed table of what differs in meaning between
// revisions (bridge.txt): renamed members, members that moved into each
// request, members the runtime writes, and results that exist in one
// era only.
type BridgeTable struct {
	rows []bridgeRow
}

type bridgeRow struct {
	kind, def string
	args      []string
	source    string // file:line
}

//go:embed bridge.txt
var builtinBridgeTable []byte

// BuiltinBridgeTable is the table mcpgen is built with.
func BuiltinBridgeTable() *BridgeTable {
	t, err := ParseBridgeTable("bridge.txt", builtinBridgeTable)
	if err != nil {
		panic(err) // tested
	}
	return t
}

// ReadBridgeTable reads a table file and adds it to the builtin one.
func ReadBridgeTable(path string) (*BridgeTable, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the bridge table: %w", err)
	}
	t, err := ParseBridgeTable(path, src)
	if err != nil {
		return nil, err
	}
	return t.With(BuiltinBridgeTable()), nil
}

// With returns the rows of t followed by those of more: where both state
// something of one member, t's row is found first.
func (t *BridgeTable) With(more *BridgeTable) *BridgeTable {
	return &BridgeTable{rows: append(slices.Clip(t.rows), more.rows...)}
}

var bridgeSyntax = map[string]struct {
	n     int
	usage string
}{
	"rename":  {3, "DEFINITION MEMBER OTHER"},
	"request": {3, "DEFINITION MEMBER SOURCE"},
	"runtime": {2, "DEFINITION|* MEMBER"},
	"absent":  {3, "DEFINITION|* MEMBER STRING"},
	"keep":    {2, "DEFINITION|* MEMBER"},
	"rounds":  {4, "DEFINITION REQUESTS RESPONSES STATE"},
	"standin": {3, "UNION MEMBER FIELD"},
}

// requestSources are what a request row may fill a member from.
var requestSources = map[string]bool{"protocolVersion": true, "clientInfo": true, "clientCapabilities": true}

// ParseBridgeTable parses a table named name; errors name the line.
func ParseBridgeTable(name string, src []byte) (*BridgeTable, error) {
	t := &BridgeTable{}
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, i+1)
		body, why, ok := strings.Cut(line, "|")
		if !ok || strings.TrimSpace(why) == "" {
			return nil, fmt.Errorf("%s: a row needs its reason after \"|\" (KIND ARGUMENTS... | WHY)", at)
		}
		words := strings.Fields(body)
		if len(words) == 0 {
			return nil, fmt.Errorf("%s: no kind before \"|\"", at)
		}
		syn, ok := bridgeSyntax[words[0]]
		if !ok {
			return nil, fmt.Errorf("%s: unknown kind %q (want rename, request, runtime, absent, keep, rounds or standin)", at, words[0])
		}
		if len(words)-1 != syn.n {
			return nil, fmt.Errorf("%s: %s wants %s", at, words[0], syn.usage)
		}
		if words[0] == "request" && !requestSources[words[3]] {
			return nil, fmt.Errorf("%s: request: unknown source %q (want protocolVersion, clientInfo or clientCapabilities)", at, words[3])
		}
		t.rows = append(t.rows, bridgeRow{kind: words[0], def: words[1], args: words[2:], source: at})
	}
	return t, nil
}

// renamed is the member of the other revision that member of def (in
// either revision) corresponds to, or "".
func (t *BridgeTable) renamed(defs [2]string, member string) string {
	for _, r := range t.rows {
		if r.kind != "rename" || (r.def != defs[0] && r.def != defs[1]) {
			continue
		}
		switch member {
		case r.args[0]:
			return r.args[1]
		case r.args[1]:
			return r.args[0]
		}
	}
	return ""
}

// request is the source a member of def is filled from, or "".
func (t *BridgeTable) request(def, member string) string {
	for _, r := range t.rows {
		if r.kind == "request" && r.def == def && r.args[0] == member {
			return r.args[1]
		}
	}
	return ""
}

// fills reports whether def has request rows.
func (t *BridgeTable) fills(def string) bool {
	for _, r := range t.rows {
		if r.kind == "request" && r.def == def {
			return true
		}
	}
	return false
}

// runtime reports a member the runtime writes or reads itself.
func (t *BridgeTable) runtime(def, member string) bool {
	for _, r := range t.rows {
		if ok, _ := path.Match(r.def, def); r.kind == "runtime" && ok && r.args[0] == member {
			return true
		}
	}
	return false
}

// keeps reports a member that travels, toward a revision whose def does
// not name it, in the Extra of def (when def keeps unknown members).
func (t *BridgeTable) keeps(def, member string) bool {
	for _, r := range t.rows {
		if ok, _ := path.Match(r.def, def); r.kind == "keep" && ok && r.args[0] == member {
			return true
		}
	}
	return false
}

// absent is the value a member of def takes, toward the revision that
// has it, when the source revision has no such member (an absent
// resultType is "complete"), if a row says so.
func (t *BridgeTable) absent(def, member string) (string, bool) {
	for _, r := range t.rows {
		if ok, _ := path.Match(r.def, def); r.kind == "absent" && ok && r.args[0] == member {
			return r.args[1], true
		}
	}
	return "", false
}

// rounds returns the rounds row of def, if any.
func (t *BridgeTable) rounds(def string) (requests, responses, state string, ok bool) {
	for _, r := range t.rows {
		if r.kind == "rounds" && r.def == def {
			return r.args[0], r.args[1], r.args[2], true
		}
	}
	return "", "", "", false
}

// standin returns the member of union (named as in either revision), and
// its string field, that stands in for a member the target revision
// lacks, if a row says so.
func (t *BridgeTable) standin(union string) (member, field string, ok bool) {
	for _, r := range t.rows {
		if r.kind == "standin" && r.def == union {
			return r.args[0], r.args[1], true
		}
	}
	return "", "", false
}
