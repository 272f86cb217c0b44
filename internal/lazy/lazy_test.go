package lazy

import "testing"

func TestRegexpCompilesOnceOnFirstUse(t *testing.T) {
	re := Regexp(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatalf("pattern %q does not match as written", first)
	}
	if re() != first {
		t.Fatal("a second call compiled the pattern again")
	}
}

func TestRegexpPanicsOnFirstUseNotBefore(t *testing.T) {
	re := Regexp(`(`) // creating the function must not panic
	defer func() {
		if recover() == nil {
			t.Fatal("a pattern that does not compile did not panic on use")
		}
	}()
	re()
}
