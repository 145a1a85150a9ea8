package specsource

import (
	"fmt"
	"strings"
)

// UnknownRevisionError reports a revision mcpgen does not pin and the spec
// root does not hold.
type UnknownRevisionError struct {
	Revision string
	// Known are the revisions mcpgen pins.
	Known []string
	// Root and InRoot name the spec root and the revisions it holds.
	Root   string
	InRoot []string
}

func (e *UnknownRevisionError) Error() string {
	msg := fmt.Sprintf("unknown revision %q: mcpgen knows %s", e.Revision, strings.Join(e.Known, ", "))
	switch {
	case e.Root != "" && len(e.InRoot) > 0:
		msg += fmt.Sprintf("; the spec root %s holds %s", e.Root, strings.Join(e.InRoot, ", "))
	case e.Root != "":
		msg += fmt.Sprintf("; the spec root %s holds none", e.Root)
	}
	return msg
}

// Suggest returns the known revision closest to the unknown one (one or
// two edits away), or "".
func (e *UnknownRevisionError) Suggest() string {
	best, bestD := "", 3
	for _, k := range append(append([]string{}, e.Known...), e.InRoot...) {
		if d := distance(e.Revision, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// ChecksumError reports a downloaded file that is not the pinned one.
// Nothing is cached.
type ChecksumError struct {
	Revision, File, URL string
	Want, Got           string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s/%s from %s has sha256 %s, want %s: the download is not the pinned file, so nothing was cached",
		e.Revision, e.File, e.URL, e.Got, e.Want)
}

// MissingChecksumError reports a commit pinned without the checksums of
// its files.
type MissingChecksumError struct {
	Revision, Commit string
	// Got holds the checksums of what upstream serves there, when it could
	// be reached: for the user to check, not trusted.
	Got map[string]string
}

func (e *MissingChecksumError) Error() string {
	msg := fmt.Sprintf("no checksums for %s at commit %s: mcpgen uses only files it can check", e.Revision, e.Commit)
	if e.Got != nil {
		msg += fmt.Sprintf(" (upstream serves %s sha256 %s, %s sha256 %s; nothing was cached)", SchemaJSON, e.Got[SchemaJSON], SchemaTS, e.Got[SchemaTS])
	}
	return msg
}

// HTTPError reports a download answered with another status than 200.
type HTTPError struct {
	URL, Status string
	Code        int
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("downloading %s: %s", e.URL, e.Status)
}

// NetworkError reports a download that reached no answer: no network, a
// refused connection, a timeout.
type NetworkError struct {
	URL string
	Err error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("downloading %s: %v", e.URL, e.Err)
}

func (e *NetworkError) Unwrap() error { return e.Err }
