package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/internal/specsource"
)

// The environment variables that supply defaults of the source flags.
const (
	urlEnv   = "MCPGEN_SPEC_URL"
	cacheEnv = "MCPGEN_CACHE"
)

// sourceFlags say where spec revisions come from: a spec root, the user
// cache, or a checked download. Generation, fetch and diff share them.
type sourceFlags struct {
	root    string
	commit  string
	sha256  []string
	baseURL string
	cache   string
	log     io.Writer
}

// register adds the flags to fs; pinning another commit makes sense only
// for one revision (generation, fetch), not for diff.
func (s *sourceFlags) register(fs *pflag.FlagSet, commit bool) {
	fs.StringVar(&s.root, "spec-root", os.Getenv(rootEnv), "a directory of revisions (<root>/<revision>/schema.json) that --revision looks in first (default $"+rootEnv+")")
	fs.StringVar(&s.baseURL, "spec-url", os.Getenv(urlEnv), "where revisions are downloaded from: <url>/<commit>/schema/<revision>/<file> (default $"+urlEnv+", else "+specsource.DefaultBaseURL+")")
	if commit {
		fs.StringVar(&s.commit, "spec-commit", "", "download --revision from this upstream commit (40 hex digits) instead of the one mcpgen pins; needs --spec-sha256")
		fs.StringSliceVar(&s.sha256, "spec-sha256", nil, "the SHA-256 of schema.json and schema.ts at --spec-commit, comma-separated")
	}
	s.cache = os.Getenv(cacheEnv)
}

// check explains the source flags that make no sense together.
func (s *sourceFlags) check(fs *pflag.FlagSet, revision bool) error {
	switch {
	case fs.Changed("spec-commit") && !revision:
		return usageErr("--spec-commit names the upstream commit to download --revision from; it needs --revision")
	case fs.Changed("spec-sha256") && !fs.Changed("spec-commit"):
		return usageErr("--spec-sha256 checks the files of --spec-commit; the revisions mcpgen pins carry their own checksums")
	case fs.Changed("spec-sha256") && len(s.sha256) != 2:
		return usageErr("--spec-sha256 wants two checksums, comma-separated: the SHA-256 of schema.json and of schema.ts at --spec-commit")
	}
	// --spec-commit alone is allowed: resolution fails saying what upstream
	// serves there, for the user to check and pin.
	return nil
}

// resolver is the specsource.Resolver the flags describe.
func (s *sourceFlags) resolver() *specsource.Resolver {
	r := &specsource.Resolver{Root: s.root, CacheDir: s.cache, BaseURL: s.baseURL, Commit: s.commit, Log: s.log}
	if len(s.sha256) > 0 {
		r.SHA256 = map[string]string{specsource.SchemaJSON: s.sha256[0]}
		if len(s.sha256) > 1 {
			r.SHA256[specsource.SchemaTS] = s.sha256[1]
		}
	}
	return r
}

// resolve finds a revision and explains failures in terms of the flags.
func (s *sourceFlags) resolve(ctx context.Context, rev string) (*specsource.Source, error) {
	r := s.resolver()
	src, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, s.explain(r, rev, err)
	}
	return src, nil
}

// explain adds to a resolution error what the user can do about it.
func (s *sourceFlags) explain(r *specsource.Resolver, rev string, err error) error {
	var (
		unknown  *specsource.UnknownRevisionError
		checksum *specsource.ChecksumError
		status   *specsource.HTTPError
		network  *specsource.NetworkError
		missing  *specsource.MissingChecksumError
	)
	var hints []string
	switch {
	case errors.As(err, &unknown):
		if sug := unknown.Suggest(); sug != "" {
			hints = append(hints, fmt.Sprintf("did you mean %s?", sug))
		}
		hints = append(hints, "a revision published after this mcpgen: --revision NAME --spec-commit COMMIT --spec-sha256 JSONSUM,TSSUM, or --spec DIR with its files (or a newer mcpgen)")
	case errors.As(err, &checksum):
		hints = append(hints, fmt.Sprintf("the server at %s does not serve the pinned files; if it is a mirror, check it (--spec-url, $%s)", baseURL(s.baseURL), urlEnv))
	case errors.As(err, &status) && status.Code == 404:
		hints = append(hints, fmt.Sprintf("upstream has no schema/%s/ at that commit: check --revision and --spec-commit", rev))
	case errors.As(err, &network):
		hints = append(hints, s.tried(r, rev),
			fmt.Sprintf("with network once: run again where %s is reachable (or set --spec-url, $%s, to a mirror with its layout); the files are checked and cached, and later runs need no network", baseURL(s.baseURL), urlEnv),
			fmt.Sprintf("offline: put %s's schema.json and schema.ts in <dir>/%s/ and point --spec-root (or $%s) at <dir> (they are schema/%s/ of github.com/modelcontextprotocol/modelcontextprotocol at the commit mcpgen pins; mcpgen fetch --all fills a cache to copy, $%s chooses its place)", rev, rev, rootEnv, rev, cacheEnv))
	case errors.As(err, &missing):
		if missing.Got != nil {
			hints = append(hints, fmt.Sprintf("check them against the repository (git show %s:schema/%s/schema.json | sha256sum) and pass --spec-sha256 %s,%s",
				missing.Commit, rev, missing.Got[specsource.SchemaJSON], missing.Got[specsource.SchemaTS]))
		}
	}
	if len(hints) == 0 {
		return err
	}
	return fmt.Errorf("%w\n  %s", err, strings.Join(hints, "\n  "))
}

// tried says where mcpgen looked for rev, for a resolution that found it
// nowhere.
func (s *sourceFlags) tried(r *specsource.Resolver, rev string) string {
	var parts []string
	switch _, err := os.Stat(r.Root); {
	case r.Root == "":
		parts = append(parts, fmt.Sprintf("no spec root (--spec-root, $%s, is unset)", rootEnv))
	case err != nil:
		parts = append(parts, fmt.Sprintf("the spec root %s (--spec-root, $%s): it does not exist", r.Root, rootEnv))
	default:
		parts = append(parts, fmt.Sprintf("the spec root %s (--spec-root, $%s): it has no %s/schema.json", r.Root, rootEnv, rev))
	}
	commit := r.Commit
	if p, ok := specsource.Lookup(rev); ok && commit == "" {
		commit = p.Commit
	}
	if dir, err := r.CacheDirOf(commit, rev); err == nil {
		parts = append(parts, fmt.Sprintf("the cache %s ($%s): not there", dir, cacheEnv))
	}
	parts = append(parts, fmt.Sprintf("the download from %s: unreachable", baseURL(s.baseURL)))
	return fmt.Sprintf("mcpgen looked for %s in %s", rev, strings.Join(parts, "; "))
}

func baseURL(s string) string {
	if s == "" {
		return specsource.DefaultBaseURL
	}
	return s
}

// specCommit identifies the upstream commit of the files in a --spec
// directory (or beside a schema.json) by their checksums; "" when they
// match no pin.
func specCommit(spec string) string {
	dir := spec
	if fi, err := os.Stat(spec); err == nil && !fi.IsDir() {
		dir = filepath.Dir(spec)
	}
	sums, err := specsource.Sums(dir)
	if err != nil {
		return ""
	}
	if p, ok := specsource.Identify(sums); ok {
		return p.Commit
	}
	return ""
}

// parseArgs parses the flags of a subcommand, which takes no arguments.
func parseArgs(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return err
		}
		return usageErr("%v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected arguments %q", fs.Args())
	}
	return nil
}

// usageError is a command line that makes no sense; exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}
