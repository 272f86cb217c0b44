package pack

import (
	"fmt"
)

// Covers reports whether every object the pack index at inner names is
// also named by the index at outer: a pack so covered can be deleted
// without losing an object. Both indexes are checked as Open checks
// them.
func Covers(outer, inner string) (bool, error) {
	po, err := openFile(outer, outer)
	if err != nil {
		return false, fmt.Errorf("%s: %w", outer, err)
	}
	defer po.close()
	pi, err := openFile(inner, inner)
	if err != nil {
		return false, fmt.Errorf("%s: %w", inner, err)
	}
	defer pi.close()
	for i := range pi.count {
		name := pi.nameAt(i)
		var h [20]byte
		copy(h[:], name)
		if _, ok, err := po.find(h); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
