// Package upstreamtest serves a directory of MCP spec revisions the way the
// upstream repository's raw file host does, for tests of downloads on
// machines without network.
package upstreamtest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Server answers GET /<commit>/schema/<revision>/<file> with
// <root>/<revision>/<file> for the commits it knows, and 404 otherwise.
type Server struct {
	*httptest.Server
	root    string
	commits map[string]bool

	mu       sync.Mutex
	requests []string
	tamper   map[string][]byte // path -> bytes served instead
}

// Start serves root for the given commits; the server stops when the test
// ends.
func Start(t testing.TB, root string, commits ...string) *Server {
	t.Helper()
	s := &Server{root: root, commits: map[string]bool{}, tamper: map[string][]byte{}}
	for _, c := range commits {
		s.commits[c] = true
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.Path)
	body, tampered := s.tamper[r.URL.Path]
	s.mu.Unlock()
	if tampered {
		w.Write(body)
		return
	}
	parts := strings.Split(strings.TrimPrefix(path.Clean(r.URL.Path), "/"), "/")
	if r.Method != http.MethodGet || len(parts) != 4 || !s.commits[parts[0]] || parts[1] != "schema" {
		http.NotFound(w, r)
		return
	}
	data, err := os.ReadFile(filepath.Join(s.root, parts[2], parts[3]))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(data)
}

// Tamper makes the server answer urlPath with body instead of the file.
func (s *Server) Tamper(urlPath string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tamper[urlPath] = body
}

// Requests returns the paths requested so far and forgets them.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.requests
	s.requests = nil
	return out
}
