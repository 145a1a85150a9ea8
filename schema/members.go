package schema

// addMembers adds the members the member facts state (an extension such
// as schema/extensions/resumable.txt, or an overrides file) to the object
// types of their definitions. The revision wins: a member it already has
// is left as it is, and a definition it lacks, or that is no object, gets
// nothing. Added members are optional: an extension cannot make what the
// specification allows invalid.
func addMembers(spec *Spec) {
	for _, f := range spec.facts.all(FactMember, "") {
		def := spec.Def(f.Args[0])
		if def == nil || def.Type.Kind != Object || findProp(def.Type, f.Args[1]) != nil {
			continue
		}
		kind := map[string]Kind{"string": String, "integer": Integer, "number": Number, "boolean": Boolean, "object": Object}[f.Args[2]]
		t := &Type{Kind: kind, Path: def.Type.Path + "/properties/" + escapePtr(f.Args[1])} // an object is Open
		def.Type.Props = append(def.Type.Props, &Prop{Name: f.Args[1], Type: t, Doc: Doc{Text: f.Why + " (" + f.Source + ")"}})
	}
}
