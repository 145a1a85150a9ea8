package fromgo_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen/fromgo"
)

var update = flag.Bool("update", false, "rewrite the golden output in testdata/rich.txtar")

// module writes the package files of a txtar (those ending in .go) into a
// new module that uses this repository's runtime, and returns its
// directory.
func module(t *testing.T, files map[string][]byte) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The runtime's own requirements, so the module needs no go mod tidy.
	rootMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	must(t, err)
	var reqs []string
	for _, line := range strings.Split(string(rootMod[bytes.Index(rootMod, []byte("require")):]), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], ".") {
			reqs = append(reqs, "require "+f[0]+" "+f[1]+" // indirect")
		}
	}
	mod := "module example.com/user\n\ngo 1.26.0\n\n" + strings.Join(reqs, "\n") + "\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	for name, data := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func goFiles(a *txtar.Archive) map[string][]byte {
	out := map[string][]byte{}
	for _, f := range a.Files {
		if strings.HasSuffix(f.Name, ".go") && f.Name != "features.gen.go" {
			out[f.Name] = f.Data
		}
	}
	return out
}

// generateRich generates testdata/rich.txtar's package into a module and
// returns the module's directory and the output.
func generateRich(t *testing.T) (string, *txtar.Archive, *fromgo.Output) {
	t.Helper()
	a, err := txtar.ParseFile("testdata/rich.txtar")
	must(t, err)
	dir := module(t, goFiles(a))
	out, err := fromgo.Generate(fromgo.Options{Dir: dir})
	must(t, err)
	must(t, os.WriteFile(out.Path, out.Content, 0o644))
	return dir, a, out
}

// TestGolden: the generated file is the golden one, byte for byte (run
// with -update to rewrite it), it is deterministic, and it compiles and
// vets.
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and compiles a package")
	}
	dir, a, out := generateRich(t)
	if out.Tools != 3 || out.Prompts != 1 || out.Resources != 1 || out.Templates != 1 {
		t.Errorf("declared %d tools, %d prompts, %d resources, %d templates; want 3, 1, 1, 1", out.Tools, out.Prompts, out.Resources, out.Templates)
	}
	again, err := fromgo.Generate(fromgo.Options{Dir: dir})
	must(t, err)
	if !bytes.Equal(again.Content, out.Content) {
		t.Error("a second run generated other bytes")
	}
	i := -1
	for j, f := range a.Files {
		if f.Name == "features.gen.go" {
			i = j
		}
	}
	switch {
	case *update && i >= 0:
		a.Files[i].Data = out.Content
	case *update:
		a.Files = append(a.Files, txtar.File{Name: "features.gen.go", Data: out.Content})
	case i < 0 || !bytes.Equal(a.Files[i].Data, out.Content):
		t.Error("features.gen.go differs from the golden in testdata/rich.txtar (run go test ./gen/fromgo -run Golden -update and review the diff)")
	}
	if *update {
		must(t, os.WriteFile("testdata/rich.txtar", txtar.Format(a), 0o644))
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated package: %v\n%s", err, b)
	}
}

// TestErrors: what cannot be expressed is a generation error naming it.
func TestErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	a, err := txtar.ParseFile("testdata/errors.txtar")
	must(t, err)
	want := map[string]string{}
	for _, f := range a.Files {
		if name, ok := strings.CutSuffix(f.Name, ".want"); ok {
			want[name] = strings.TrimSpace(string(f.Data))
		}
	}
	for _, f := range a.Files {
		name, ok := strings.CutSuffix(f.Name, ".go")
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := module(t, map[string][]byte{f.Name: f.Data})
			_, err := fromgo.Generate(fromgo.Options{Dir: dir})
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), want[name]) {
				t.Fatalf("got error %v, want one containing %q", err, want[name])
			}
		})
	}
}

// probe is the test that runs inside the generated module: it calls the
// generated tools with each input and reports whether the arguments were
// accepted, and the tools' input schemas.
const probe = `package rich

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestProbe(t *testing.T) {
	in, err := os.ReadFile(os.Getenv("PROBE_IN"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Tool string
		Args json.RawMessage
	}
	if err := json.Unmarshal(in, &cases); err != nil {
		t.Fatal(err)
	}
	s := Features()
	out := struct {
		Schemas map[string]string
		Results []string
	}{Schemas: map[string]string{}}
	for _, c := range cases {
		tool, ok := s.Tool(c.Tool)
		if !ok {
			t.Fatalf("no tool %s", c.Tool)
		}
		out.Schemas[c.Tool] = string(tool.InputSchema)
		_, err := tool.Call(context.Background(), wire.Raw(c.Args))
		var ae *features.ArgumentError
		switch {
		case errors.As(err, &ae):
			out.Results = append(out.Results, "reject: "+ae.Error())
		case err != nil:
			out.Results = append(out.Results, "error: "+err.Error())
		default:
			out.Results = append(out.Results, "accept")
		}
	}
	b, _ := json.Marshal(out)
	if err := os.WriteFile(os.Getenv("PROBE_OUT"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
`

// TestDifferential: the generated decoders and validators accept exactly
// the arguments jsonschema/v5 accepts under the generated input schema
// (formats and content encodings asserted), over inputs mutated from a
// valid seed.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs the generated package")
	}
	dir, _, _ := generateRich(t)
	must(t, os.WriteFile(filepath.Join(dir, "probe_test.go"), []byte(probe), 0o644))
	type input struct {
		Tool string
		Args json.RawMessage
	}
	var inputs []input
	for _, args := range mutations() {
		inputs = append(inputs, input{"everything", json.RawMessage(args)})
	}
	for _, args := range []string{`{}`, `{"x":1}`, `[]`, `null`, `"s"`, `{"a":{}}`} {
		inputs = append(inputs, input{"no_args", json.RawMessage(args)})
	}
	in, _ := json.Marshal(inputs)
	inFile, outFile := filepath.Join(dir, "probe.in"), filepath.Join(dir, "probe.out")
	must(t, os.WriteFile(inFile, in, 0o644))
	cmd := exec.Command("go", "test", "-run", "TestProbe", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PROBE_IN="+inFile, "PROBE_OUT="+outFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("probe: %v\n%s", err, b)
	}
	var got struct {
		Schemas map[string]string
		Results []string
	}
	data, err := os.ReadFile(outFile)
	must(t, err)
	must(t, json.Unmarshal(data, &got))
	schemas := map[string]*jsonschema.Schema{}
	for name, s := range got.Schemas {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		c.AssertFormat, c.AssertContent = true, true
		must(t, c.AddResource(name+".json", strings.NewReader(s)))
		schemas[name], err = c.Compile(name + ".json")
		must(t, err)
	}
	accepted, mismatches := 0, 0
	for i, in := range inputs {
		var v any
		d := json.NewDecoder(bytes.NewReader(in.Args))
		d.UseNumber()
		must(t, d.Decode(&v))
		verr := schemas[in.Tool].Validate(v)
		ours := got.Results[i]
		if strings.HasPrefix(ours, "error") {
			t.Errorf("%s %s: %s", in.Tool, in.Args, ours)
			continue
		}
		if (verr == nil) != (ours == "accept") && !knownDifference(verr, ours) {
			mismatches++
			if mismatches <= 20 {
				t.Errorf("%s %s: jsonschema says %v; ours %s", in.Tool, in.Args, verr, ours)
			}
		}
		if verr == nil {
			accepted++
		}
	}
	t.Logf("differential: %d inputs, %d accepted and %d rejected by both, %d mismatches", len(inputs), accepted, len(inputs)-accepted-mismatches, mismatches)
	if accepted == 0 || accepted == len(inputs) {
		t.Errorf("the inputs do not exercise both outcomes (%d of %d accepted)", accepted, len(inputs))
	}
}

// knownDifference reports the two places where the decoder and its schema
// differ on purpose: the schema leaves out a 64-bit integer's own range
// (noise to a model, and not exact in JavaScript) which the decoder still
// enforces, and the decoder takes null for an optional member (which the
// schema describes as absent or a value) as absent.
func knownDifference(verr error, ours string) bool {
	if verr == nil {
		return strings.Contains(ours, "must be ≤ 9223372036854775807") || strings.Contains(ours, "must be ≥ -9223372036854775808") ||
			strings.Contains(ours, "must be ≤ 18446744073709551615")
	}
	return ours == "accept" && strings.Contains(verr.Error(), "but got null")
}

// mutations are arguments of the everything tool: a valid seed, each
// member replaced by each candidate value, removed, nested members
// replaced, and random combinations of two such changes.
func mutations() []string {
	seed := map[string]any{
		"trace": "abcd", "name": "ok", "unit": "celsius", "mode": "fast", "small": 1, "count": 5, "port": 80,
		"ratio": 0.5, "single": 1.5, "on": true, "where": map[string]any{"lat": 1, "lon": 2},
		"path": []any{map[string]any{"lat": 0, "lon": 0}}, "tags": []any{"a"}, "scores": map[string]any{"x": 1},
		"when": "2026-01-02T03:04:05Z", "blob": "AAEC", "extra": map[string]any{"any": []any{1}}, "note": "n",
		"link": "https://example.com/x", "nested": map[string]any{"k": []any{true}},
	}
	values := []any{nil, "", "x", "abcdefghij", "né", "celsius", "kelvin", "fast", "slow", "ab12", "xyz",
		0, -1, 1, 2.0, 1.5, 99, 100, 127, 128, -129, 65535, 65536, 1e30, 1e39, -1e39, 0.0001, 1.0000001,
		true, false, []any{}, []any{"a"}, []any{"d"}, []any{"a", "b", "c", "a"}, []any{1}, map[string]any{},
		map[string]any{"lat": 91, "lon": 0}, map[string]any{"lat": 0, "lon": 0, "z": 1}, map[string]any{"x": "y"},
		"2026-01-02T03:04:05Z", "2026-13-02T03:04:05Z", "not a date", "AAEC", "!!", "https://a.b/c", "no scheme",
		[]any{map[string]any{"lat": 0, "lon": 0}, map[string]any{"lat": 0, "lon": 0}, map[string]any{"lat": 0, "lon": 0}, map[string]any{"lat": 0, "lon": 0}},
		map[string]any{"k": []any{true, 1}}, map[string]any{"k": 1.5},
	}
	var out []string
	add := func(m map[string]any) {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		out = append(out, string(b))
	}
	clone := func() map[string]any {
		m := map[string]any{}
		for k, v := range seed {
			m[k] = v
		}
		return m
	}
	add(seed)
	var changes []func(map[string]any)
	for k := range seed {
		changes = append(changes, func(m map[string]any) { delete(m, k) })
		for _, v := range values {
			changes = append(changes, func(m map[string]any) { m[k] = v })
		}
	}
	for _, v := range values {
		changes = append(changes,
			func(m map[string]any) { m["unknown"] = v },
			func(m map[string]any) { m["where"] = map[string]any{"lat": v, "lon": 0} },
			func(m map[string]any) { m["tags"] = []any{"a", v} },
			func(m map[string]any) { m["scores"] = map[string]any{"k": v} },
		)
	}
	for _, c := range changes {
		m := clone()
		c(m)
		add(m)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		m := clone()
		changes[r.IntN(len(changes))](m)
		changes[r.IntN(len(changes))](m)
		add(m)
	}
	return out
}

// TestReferenceInREADME: the declaring guide quotes fromgo.Reference as
// it is.
func TestReferenceInREADME(t *testing.T) {
	b, err := os.ReadFile("../../docs/declaring.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "```text\n"+fromgo.Reference+"```") {
		t.Error("docs/declaring.md does not quote fromgo.Reference as it is: copy it there")
	}
}

// TestHandlerNames: mcpgen tools warns of a handler method named off
// from the revision's method it seems meant to serve (taking its params,
// or one or two letters off), naming that method: the runtime finds
// handler methods by name, and would answer its requests -32601 in
// silence.
func TestHandlerNames(t *testing.T) { testWarnings(t, "testdata/handlers.txtar") }

// TestWarnings: a struct tag key or a directive prefix one edit from one
// mcpgen reads, and a directive outside a function's doc comment, are
// warnings naming the place and the fix (mcpgen would drop them in
// silence).
func TestWarnings(t *testing.T) { testWarnings(t, "testdata/warnings.txtar") }

// testWarnings generates the package of the txtar at path and compares
// the warnings with its want file.
func testWarnings(t *testing.T, path string) {
	a, err := txtar.ParseFile(path)
	must(t, err)
	files := map[string][]byte{}
	var want string
	for _, f := range a.Files {
		switch {
		case f.Name == "want":
			want = string(f.Data)
		case strings.HasSuffix(f.Name, ".go"):
			files[f.Name] = f.Data
		}
	}
	dir := module(t, nil)
	for name, data := range files {
		must(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	out, err := fromgo.Generate(fromgo.Options{Dir: dir})
	must(t, err)
	var got []string
	for _, w := range out.Warnings {
		got = append(got, strings.TrimPrefix(w, dir+string(filepath.Separator)))
	}
	if g := strings.Join(got, "\n") + "\n"; g != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", g, want)
	}
}
