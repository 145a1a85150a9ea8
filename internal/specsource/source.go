package specsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Origin tells where a revision's files were found.
type Origin int

// The places a revision comes from, in the order they are tried.
const (
	// SpecRoot: <root>/<revision>, a directory the user keeps.
	SpecRoot Origin = iota + 1
	// Cache: the user cache, filled by an earlier download.
	Cache
	// Download: fetched just now (and cached).
	Download
)

func (o Origin) String() string {
	switch o {
	case SpecRoot:
		return "spec root"
	case Cache:
		return "cache"
	case Download:
		return "download"
	}
	return "origin?"
}

// Source is where a revision's files are.
type Source struct {
	Revision string
	// Dir holds schema.json and schema.ts.
	Dir string
	// Commit is the upstream commit the files are from, "" when they match
	// no pin (local files).
	Commit string
	// SHA256 maps each file to its hex SHA-256.
	SHA256 map[string]string
	Origin Origin
}

// maxFileSize bounds a download: the largest schema is about 250 KB.
const maxFileSize = 16 << 20

// Resolver finds revisions. Its zero value looks in the user cache and
// downloads from DefaultBaseURL at the commits mcpgen pins.
type Resolver struct {
	// Root is a directory of revisions (<root>/<revision>/schema.json),
	// tried first; "" for none.
	Root string
	// CacheDir is mcpgen's cache directory; the files of a revision go to
	// <CacheDir>/spec/<commit>/<revision>/. "" means DefaultCacheDir().
	CacheDir string
	// BaseURL replaces DefaultBaseURL (a mirror, or a test server).
	BaseURL string
	// Client makes the requests; nil means a client with a 2-minute
	// timeout.
	Client *http.Client
	// Commit, when set, pins another upstream commit than mcpgen's, and
	// SHA256 the checksums of the files there (schema.json and schema.ts).
	Commit string
	SHA256 map[string]string
	// Log, when set, receives one line per download.
	Log io.Writer
}

// DefaultCacheDir is <user cache dir>/mcpgen (os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (%w): set $MCPGEN_CACHE", err)
	}
	return filepath.Join(dir, "mcpgen"), nil
}

// Resolve finds revision rev: in the spec root, then in the cache, then by
// downloading it at its pinned commit (or r.Commit).
func (r *Resolver) Resolve(ctx context.Context, rev string) (*Source, error) {
	if err := CheckRevision(rev); err != nil {
		return nil, err
	}
	if r.Root != "" {
		src, err := r.fromRoot(rev)
		if err != nil || src != nil {
			return src, err
		}
	}
	return r.Fetch(ctx, rev)
}

// Fetch finds revision rev in the cache or downloads it, never looking at
// the spec root.
func (r *Resolver) Fetch(ctx context.Context, rev string) (*Source, error) {
	if err := CheckRevision(rev); err != nil {
		return nil, err
	}
	pin, err := r.pin(rev)
	if err != nil {
		var missing *MissingChecksumError
		if errors.As(err, &missing) {
			// Say what upstream serves, so the user can check and pin it.
			missing.Got = r.peek(ctx, rev)
		}
		return nil, err
	}
	cache, err := r.cacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, "spec", pin.Commit, rev)
	if sums, ok := readChecked(dir, pin.SHA256); ok {
		return &Source{Revision: rev, Dir: dir, Commit: pin.Commit, SHA256: sums, Origin: Cache}, nil
	}
	files := map[string][]byte{}
	for _, name := range fileNames() {
		url := r.url(pin.Commit, rev, name)
		if r.Log != nil {
			fmt.Fprintf(r.Log, "mcpgen: downloading %s\n", url)
		}
		data, err := r.get(ctx, url)
		if err != nil {
			return nil, err
		}
		got := sum(data)
		if want := pin.SHA256[name]; got != want {
			return nil, &ChecksumError{Revision: rev, File: name, URL: url, Want: want, Got: got}
		}
		files[name] = data
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, fmt.Errorf("caching %s: %w", rev, err)
	}
	return &Source{Revision: rev, Dir: dir, Commit: pin.Commit, SHA256: pin.SHA256, Origin: Download}, nil
}

// fromRoot returns the revision's directory in the spec root, nil when the
// root does not hold it (or, with r.Commit, holds other files).
func (r *Resolver) fromRoot(rev string) (*Source, error) {
	dir := filepath.Join(r.Root, rev)
	if _, err := os.Stat(filepath.Join(dir, SchemaJSON)); err != nil {
		return nil, nil
	}
	sums, err := Sums(dir)
	if err != nil {
		return nil, err
	}
	src := &Source{Revision: rev, Dir: dir, SHA256: sums, Origin: SpecRoot}
	switch {
	case r.Commit != "":
		if !matches(r.SHA256, sums) {
			return nil, nil // other files than the ones asked for: fetch those
		}
		src.Commit = r.Commit
	default:
		if p, ok := Identify(sums); ok {
			src.Commit = p.Commit
		}
	}
	return src, nil
}

// pin is what to fetch rev at: r.Commit with r.SHA256, or mcpgen's pin.
func (r *Resolver) pin(rev string) (Pin, error) {
	if r.Commit == "" {
		p, ok := Lookup(rev)
		if !ok {
			return Pin{}, &UnknownRevisionError{Revision: rev, Known: Known(), Root: r.Root, InRoot: revisionsIn(r.Root)}
		}
		return p, nil
	}
	if err := CheckCommit(r.Commit); err != nil {
		return Pin{}, err
	}
	for _, f := range fileNames() {
		if r.SHA256[f] == "" {
			return Pin{}, &MissingChecksumError{Revision: rev, Commit: r.Commit}
		}
		if err := CheckSHA256(r.SHA256[f]); err != nil {
			return Pin{}, fmt.Errorf("checksum of %s: %w", f, err)
		}
	}
	return Pin{Revision: rev, Commit: r.Commit, SHA256: r.SHA256}, nil
}

// peek downloads the files of rev at r.Commit only to report their
// checksums; it keeps nothing and reports no error (nil on failure).
func (r *Resolver) peek(ctx context.Context, rev string) map[string]string {
	got := map[string]string{}
	for _, name := range fileNames() {
		data, err := r.get(ctx, r.url(r.Commit, rev, name))
		if err != nil {
			return nil
		}
		got[name] = sum(data)
	}
	return got
}

func (r *Resolver) cacheDir() (string, error) {
	if r.CacheDir != "" {
		return r.CacheDir, nil
	}
	return DefaultCacheDir()
}

// CacheDirOf is the directory a resolver caches rev at commit in.
func (r *Resolver) CacheDirOf(commit, rev string) (string, error) {
	cache, err := r.cacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "spec", commit, rev), nil
}

func (r *Resolver) url(commit, rev, file string) string {
	base := r.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimRight(base, "/") + "/" + commit + "/schema/" + rev + "/" + file
}

// get downloads url, at most maxFileSize bytes.
func (r *Resolver) get(ctx context.Context, url string) ([]byte, error) {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, &NetworkError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &HTTPError{URL: url, Status: resp.Status, Code: resp.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxFileSize+1))
	if err != nil {
		return nil, &NetworkError{URL: url, Err: err}
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("downloading %s: larger than %d bytes", url, maxFileSize)
	}
	return data, nil
}

// Sums returns the SHA-256 of the revision files in dir (schema.ts may be
// missing).
func Sums(dir string) (map[string]string, error) {
	sums := map[string]string{}
	for _, name := range fileNames() {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) && name != SchemaJSON {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading spec: %w", err)
		}
		sums[name] = sum(data)
	}
	return sums, nil
}

// readChecked reports whether dir holds files with the wanted checksums.
func readChecked(dir string, want map[string]string) (map[string]string, bool) {
	have, err := Sums(dir)
	if err != nil || !matches(want, have) {
		return nil, false
	}
	return have, true
}

// writeFiles writes each file through a temporary file and a rename, so a
// concurrent reader never sees half a file.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		tmp, err := os.CreateTemp(dir, "."+name+".*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(data)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}

// revisionsIn lists the revision directories of a spec root.
func revisionsIn(root string) []string {
	if root == "" {
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, e.Name(), SchemaJSON)); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
