package schema

import "fmt"

// fitShapes gives the shapes the generated Go cannot represent their
// documented fallback (UnsupportedShape):
//
//   - an optional member that may be null has three states (absent, null,
//     a value); Go fields hold two. It becomes any JSON value, kept raw:
//     all three survive a round trip, and Validate does not check it.
//   - an object with named members and typed additional members: its
//     other members are kept, unchecked, in Extra.
//   - more than 64 required members: the ones beyond 64 are treated as
//     optional.
func fitShapes(spec *Spec) error {
	return spec.walk(func(t *Type) error {
		if t.Kind != Object {
			return nil
		}
		required := 0
		for _, p := range t.Props {
			if p.Required {
				required++
				if required > maxRequired {
					if err := shapeWarning(spec, p.Type.Path, fmt.Sprintf("member %q is required member number %d of an object; generated types track %d", p.Name, required, maxRequired), "it is treated as optional"); err != nil {
						return err
					}
					p.Required = false
				}
			}
			if !p.Required && p.Type.Nullable {
				if err := shapeWarning(spec, p.Type.Path, fmt.Sprintf("optional member %q may also be null (absent, null and a value are three states)", p.Name), "any JSON value, kept raw: Validate does not check it"); err != nil {
					return err
				}
				p.Type = &Type{Kind: Any, Path: p.Type.Path, Doc: p.Type.Doc}
			}
		}
		if len(t.Props) > 0 && t.Additional == Typed {
			if err := shapeWarning(spec, t.Path, "an object with both named members and typed additional members", "the other members are kept in Extra, unchecked"); err != nil {
				return err
			}
			t.Additional, t.AdditionalType = Open, nil
		}
		return nil
	})
}

// maxRequired is how many required members a generated struct tracks (the
// bits of one uint64).
const maxRequired = 64

func shapeWarning(spec *Spec, path, what, fallback string) error {
	return spec.warn(Warning{Class: UnsupportedShape, Where: spec.at(path), What: what, Fallback: fallback})
}
