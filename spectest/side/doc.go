// Package side checks packages generated for one end of a connection
// (mcpgen --side): a server built on server-side packages answers a client
// built on client-side packages, in both eras, and neither mounts on the
// other end. The packages are build outputs of go generate (make test).
package side

//go:generate go tool mcpgen --revision 2025-11-25 --side server --out server/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --side server --out server/v20260728
//go:generate go tool mcpgen --revision 2025-11-25 --side client --out client/v20251125
//go:generate go tool mcpgen --revision 2026-07-28 --side client --out client/v20260728
