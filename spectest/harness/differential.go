package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/schema"
)

// reference compiles definitions of one (possibly patched) schema.json
// with jsonschema, once each.
type reference struct {
	c        *jsonschema.Compiler
	url, key string
	compiled map[string]*jsonschema.Schema
}

func newReference(spec *schema.Spec, src []byte) (*reference, error) {
	c, url, err := schema.NewReferenceCompiler(spec.JSONPath, src)
	if err != nil {
		return nil, err
	}
	key := "$defs"
	if spec.Dialect == schema.Draft07 {
		key = "definitions"
	}
	return &reference{c: c, url: url, key: key, compiled: map[string]*jsonschema.Schema{}}, nil
}

// valid reports jsonschema's verdict on data as an instance of def.
func (r *reference) valid(def string, data []byte) (bool, error) {
	s, ok := r.compiled[def]
	if !ok {
		var err error
		s, err = r.c.Compile(r.url + "#/" + r.key + "/" + def)
		if err != nil {
			return false, err
		}
		r.compiled[def] = s
	}
	// jsonschema wants numbers as json.Number.
	v, err := parse(data)
	if err != nil {
		return false, err
	}
	return s.Validate(v) == nil, nil
}

// generatedValid is the generated code's verdict: it decodes and validates.
func generatedValid(dec Decoder, data []byte) (bool, error) {
	v, err := dec(data)
	if err != nil {
		return false, err
	}
	if err := v.Validate(); err != nil {
		return false, err
	}
	return true, nil
}

// Corpus is the differential test's input: the spec examples and our
// vectors, each with its mutations.
func Corpus(t testing.TB, reg Registry) []Case {
	own := Examples(t, reg.Revision)
	base := append(own, Vectors(t, reg)...)
	spec := specdir.Load(t, reg.Revision)
	if len(own) == 0 {
		// Revisions without examples borrow those of ExampleRevision for the
		// definitions they share: any JSON is a fair test input, valid here
		// or not.
		for _, c := range Examples(t, ExampleRevision) {
			if _, ok := reg.Types[c.Type]; ok && spec.Def(c.Type) != nil {
				c.Name = ExampleRevision + ":" + c.Name
				base = append(base, c)
			}
		}
	}
	var out []Case
	for _, c := range base {
		out = append(out, c)
		muts, err := Mutations(c.Data)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, m := range muts {
			out = append(out, Case{Name: c.Name + " [" + m.Name + "]", Type: c.Type, Data: m.Data})
		}
	}
	return out
}

// ExampleRevision is the revision whose examples other revisions borrow.
const ExampleRevision = "2026-07-28"

// Differential checks, for every case of the corpus, that the generated
// verdict (decode and Validate) equals jsonschema's on schema.json rewritten
// with the documented Differences, and attributes every disagreement with
// the plain schema.json to one of them. It logs the counts, and writes them
// to $MCPGEN_REPORT_DIR/differential-<rev>.txt when that is set.
func Differential(t *testing.T, reg Registry) {
	spec := specdir.Load(t, reg.Revision)
	src, err := os.ReadFile(spec.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	// refs[i] is schema.json with the first i Differences applied.
	refs := make([]*reference, len(Differences)+1)
	for i := range refs {
		patched, err := Patch(spec, reg, src, i)
		if err != nil {
			t.Fatal(err)
		}
		if refs[i], err = newReference(spec, patched); err != nil {
			t.Fatal(err)
		}
	}
	cases := Corpus(t, reg)
	if len(cases) == 0 {
		t.Skip("no corpus for this revision")
	}
	var total, valid, skipped, disagreements int
	attributed := map[string]int{}
	var details []string
	for _, c := range cases {
		dec := reg.Types[c.Type]
		if dec == nil {
			skipped++
			continue
		}
		total++
		got, gerr := generatedValid(dec, c.Data)
		if got {
			valid++
		}
		verdicts := make([]bool, len(refs))
		for i, r := range refs {
			v, err := r.valid(c.Type, c.Data)
			if err != nil {
				t.Fatalf("%s: reference: %v", c.Name, err)
			}
			verdicts[i] = v
		}
		final := verdicts[len(refs)-1]
		if got != final {
			disagreements++
			if len(details) < 20 {
				details = append(details, fmt.Sprintf("%s: generated %v (%v), reference %v\n    %s", c.Name, got, gerr, final, c.Data))
			}
			continue
		}
		if verdicts[0] != got {
			// The first rewrite after which jsonschema agrees explains it.
			for i := 1; i < len(verdicts); i++ {
				if verdicts[i] == got {
					attributed[Differences[i-1].Name]++
					break
				}
			}
		}
	}
	for _, d := range details {
		t.Errorf("disagreement: %s", d)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "revision %s: %d cases (%d valid, %d invalid), %d disagreements with the documented reference", reg.Revision, total, valid, total-valid, disagreements)
	if skipped > 0 {
		fmt.Fprintf(&report, ", %d skipped (no decoder: origin unions)", skipped)
	}
	report.WriteString("\ndifferences from plain schema.json, by documented cause:\n")
	var names []string
	for name := range attributed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, d := range Differences {
		fmt.Fprintf(&report, "  %-22s %5d  %s\n", d.Name, attributed[d.Name], d.Why)
	}
	t.Log(report.String())
	if dir := os.Getenv("MCPGEN_REPORT_DIR"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, "differential-"+reg.Revision+".txt"), []byte(report.String()), 0o644)
	}
}

// StrictExamples checks the two spec examples that plain JSON Schema
// accepts but strict, discriminated validation rejects, and why:
//
//   - ReadResourceResultResponse/read-resource-result-response.json has
//     resultType "complete", so its result is a ReadResourceResult, which
//     requires ttlMs and cacheScope; anyOf lets it through as an
//     InputRequiredResult, which requires only resultType.
//   - ListRootsRequest/list-roots-request.json carries an id, which 2026
//     input requests (not JSON-RPC messages) no longer have.
func StrictExamples(t *testing.T, reg Registry) {
	tests := []struct {
		file string
		want map[string]string // pointer -> rule
	}{
		{"ReadResourceResultResponse/read-resource-result-response.json", map[string]string{"/result/ttlMs": "required", "/result/cacheScope": "required"}},
		{"ListRootsRequest/list-roots-request.json", map[string]string{"/id": "forbidden"}},
	}
	spec := specdir.Load(t, reg.Revision)
	src, err := os.ReadFile(spec.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := newReference(spec, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(specdir.Dir(t, reg.Revision), "examples", tt.file))
			if err != nil {
				t.Skipf("example not present: %v", err)
			}
			typ := filepath.Dir(tt.file)
			if ok, err := plain.valid(typ, data); err != nil || !ok {
				t.Errorf("plain jsonschema: valid=%v err=%v; the example was expected to pass plain validation", ok, err)
			}
			v, err := reg.Types[typ](data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			err = v.Validate()
			var ve *valid.Error
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want the example rejected", err)
			}
			got := map[string]string{}
			for _, v := range ve.Violations {
				got[v.Pointer] = v.Rule
			}
			for p, rule := range tt.want {
				if got[p] != rule {
					t.Errorf("violation at %s: %q, want %q (all: %v)", p, got[p], rule, ve.Violations)
				}
			}
		})
	}
}
