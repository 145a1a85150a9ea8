// Package specsource finds the files of one MCP spec revision (schema.json
// and schema.ts): in a spec root the user keeps, in the user cache, or by
// downloading them from the upstream repository at a pinned commit and
// checking their SHA-256 against the checksums mcpgen carries (pins.txt).
//
// Resolution never trusts a download it cannot check: a revision mcpgen
// does not pin is fetched only with a commit and checksums the user states.
package specsource

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The files of a revision, in the order they are fetched.
const (
	SchemaJSON = "schema.json"
	SchemaTS   = "schema.ts"
)

// fileNames lists the files a revision consists of.
func fileNames() []string { return []string{SchemaJSON, SchemaTS} }

// Repository is the upstream repository the pins refer to.
const Repository = "github.com/modelcontextprotocol/modelcontextprotocol"

// DefaultBaseURL is where files are downloaded from:
// <base>/<commit>/schema/<revision>/<file>.
const DefaultBaseURL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol"

//go:embed pins.txt
var pinsTxt []byte

// Pin is one revision at one upstream commit with the checksums of its
// files.
type Pin struct {
	Revision string
	Commit   string
	// SHA256 maps each file name (schema.json, schema.ts) to its hex
	// SHA-256.
	SHA256 map[string]string
}

var (
	commitRE   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	sha256RE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	revisionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// Pins lists the revisions mcpgen pins, in the order of pins.txt.
func Pins() []Pin {
	pins, err := parsePins(pinsTxt)
	if err != nil {
		// pins.txt is part of the binary and checked by its tests.
		panic("specsource: " + err.Error())
	}
	return pins
}

// parsePins reads the pins.txt format: "commit <sha>" lines, each followed
// by sha256sum lines "<hex>  <revision>/<file>".
func parsePins(src []byte) ([]Pin, error) {
	var pins []Pin
	commit := ""
	byRev := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if c, ok := strings.CutPrefix(line, "commit "); ok {
			if !commitRE.MatchString(c) {
				return nil, fmt.Errorf("pins.txt:%d: %q is not a full commit hash", n, c)
			}
			commit = c
			continue
		}
		sum, path, ok := strings.Cut(line, "  ")
		rev, file, ok2 := strings.Cut(path, "/")
		if !ok || !ok2 || !sha256RE.MatchString(sum) || !revisionRE.MatchString(rev) || !slices.Contains(fileNames(), file) {
			return nil, fmt.Errorf("pins.txt:%d: want \"<sha256>  <revision>/<file>\", have %q", n, line)
		}
		if commit == "" {
			return nil, fmt.Errorf("pins.txt:%d: checksum before any commit line", n)
		}
		i, seen := byRev[rev]
		if !seen {
			i = len(pins)
			byRev[rev] = i
			pins = append(pins, Pin{Revision: rev, Commit: commit, SHA256: map[string]string{}})
		}
		if pins[i].Commit != commit {
			return nil, fmt.Errorf("pins.txt:%d: %s is pinned at two commits", n, rev)
		}
		pins[i].SHA256[file] = sum
	}
	for _, p := range pins {
		for _, f := range fileNames() {
			if p.SHA256[f] == "" {
				return nil, fmt.Errorf("pins.txt: %s has no checksum for %s", p.Revision, f)
			}
		}
	}
	return pins, sc.Err()
}

// Lookup returns the pin of a revision.
func Lookup(rev string) (Pin, bool) {
	for _, p := range Pins() {
		if p.Revision == rev {
			return p, true
		}
	}
	return Pin{}, false
}

// Known lists the revisions mcpgen pins.
func Known() []string {
	var out []string
	for _, p := range Pins() {
		out = append(out, p.Revision)
	}
	return out
}

// Identify returns the pin whose files have the given checksums (every
// file of the pin must match), telling where local files came from.
func Identify(sums map[string]string) (Pin, bool) {
	for _, p := range Pins() {
		if matches(p.SHA256, sums) {
			return p, true
		}
	}
	return Pin{}, false
}

// matches reports whether every checksum of want is in have.
func matches(want, have map[string]string) bool {
	for f, s := range want {
		if have[f] != s {
			return false
		}
	}
	return len(want) > 0
}

// CheckRevision rejects revision names that could not be a directory of
// the upstream schema folder (and could escape the cache).
func CheckRevision(rev string) error {
	if !revisionRE.MatchString(rev) || strings.Contains(rev, "..") {
		return fmt.Errorf("%q is not a revision name (letters, digits, '.', '-', '_', e.g. 2025-11-25)", rev)
	}
	return nil
}

// CheckCommit rejects anything but a full commit hash: a branch or a short
// hash names different files over time.
func CheckCommit(c string) error {
	if !commitRE.MatchString(c) {
		return fmt.Errorf("%q is not a full commit hash (40 lowercase hex digits): a branch or a short hash can name different files tomorrow", c)
	}
	return nil
}

// CheckSHA256 rejects anything but a hex SHA-256.
func CheckSHA256(s string) error {
	if !sha256RE.MatchString(s) {
		return fmt.Errorf("%q is not a SHA-256 (64 lowercase hex digits)", s)
	}
	return nil
}
