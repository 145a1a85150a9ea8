// Command specmirror serves a directory of MCP spec revisions at the layout
// mcpgen downloads from (<url>/<commit>/schema/<revision>/<file>, the
// upstream repository's raw file host), for the commits mcpgen pins: a
// mirror for machines without network, and what scripts/fresh-clone.sh
// points MCPGEN_SPEC_URL at to test the download path. mcpgen checks every
// file it downloads against its pinned SHA-256, so the mirror is not
// trusted. It prints its URL, then serves until killed.
//
//	go run ./internal/specsource/cmd/specmirror -root ../shared/mcp-schema
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/specsource"
)

func main() {
	root := flag.String("root", "../shared/mcp-schema", "the directory of revisions (<root>/<revision>/schema.json)")
	addr := flag.String("addr", "127.0.0.1:0", "the address to listen on")
	flag.Parse()
	pinned := map[string]string{} // commit/revision -> revision
	for _, p := range specsource.Pins() {
		pinned[p.Commit+"/"+p.Revision] = p.Revision
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.TrimPrefix(path.Clean(r.URL.Path), "/"), "/")
		if r.Method != http.MethodGet || len(parts) != 4 || parts[1] != "schema" || pinned[parts[0]+"/"+parts[2]] == "" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(*root, parts[2], parts[3]))
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "specmirror:", err)
		os.Exit(1)
	}
}
