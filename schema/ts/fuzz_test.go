package ts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"export interface A extends B, Omit<C, \"x\" | \"y\"> {\n  a?: string;\n  \"q/x\": number[][],\n  [k: string]: unknown\n}\n",
		"/** Doc {@link A | a} {@includeCode ./x.json}\n * @deprecated soon\n * @TJS-type number */\nexport type T =\n  | \"a\"\n  | (B & { c: typeof D })[]\n  | Record<string, unknown>;\n",
		"export const X = -32700;\nexport const Y: string = 'a\\'b';\n",
		"type X = { a: { b: Array<{ c: 1 }> } }",
		"interface A { /* c */ // d\n a: string }",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// The real thing, if available, as one more seed.
	root := os.Getenv("MCPGEN_SPEC_ROOT")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "mcp-schema")
	}
	if src, err := os.ReadFile(filepath.Join(root, "2025-11-25", "schema.ts")); err == nil {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseBytes("fuzz.ts", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, not *Error", err, err)
			}
			if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" {
				t.Fatalf("bad error %#v", e)
			}
			return
		}
		for _, d := range file.Decls {
			for _, ty := range declTypes(d) {
				checkRoundTrip(t, ty)
			}
			if d.Value != nil {
				_ = d.Value.String()
			}
		}
	})
}
