package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// CanonicalNumber returns the canonical form of a JSON number literal.
//
// An integer literal (no fraction, no exponent) is kept digit for digit,
// whatever its size, and "-0" keeps its sign. Any other number is reduced
// to its exact decimal value and written the way ECMAScript writes
// numbers (the form RFC 8785 uses): 1.50 → 1.5, 1E2 → 100,
// 0.0000001 → 1e-7. Digits beyond float64 precision are kept, not
// rounded, so nothing is lost.
func CanonicalNumber(lit string) (Number, error) {
	if end, err := scanNumber([]byte(lit), 0); err != nil || end != len(lit) {
		return "", fmt.Errorf("%q is not a JSON number", lit)
	}
	neg := strings.HasPrefix(lit, "-")
	body := strings.TrimPrefix(lit, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(body), "e")
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	if !hasExp && !hasFrac {
		return Number(lit), nil
	}
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(expPart)
		if err != nil || e > maxExponent || e < -maxExponent {
			return "", fmt.Errorf("the exponent of %q is too large", lit)
		}
		exp = e
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	if digits == "" {
		if neg {
			return "-0", nil
		}
		return "0", nil
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	// Check the exponent of the normalised form, which is what gets
	// written, so that the canonical form can be parsed again.
	if e := len(trimmed) + exp - 1; e > maxExponent || e < -maxExponent {
		return "", fmt.Errorf("the exponent of %q is too large", lit)
	}
	s := formatDecimal(trimmed, exp)
	if neg {
		s = "-" + s
	}
	return Number(s), nil
}

// formatDecimal writes digits × 10^exp the way ECMAScript's
// Number.prototype.toString does (ECMA-262 §6.1.6.1.20).
func formatDecimal(digits string, exp int) string {
	k := len(digits)
	n := k + exp // the decimal point sits after n digits
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	var b strings.Builder
	b.WriteByte(digits[0])
	if k > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('e')
	if n-1 >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(n - 1))
	return b.String()
}

// Float64 returns the number as the nearest float64.
func (n Number) Float64() (float64, error) {
	return strconv.ParseFloat(string(n), 64)
}

// Int64 returns the number as an int64 when it is an integer that fits.
func (n Number) Int64() (int64, bool) {
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// String returns the canonical literal.
func (n Number) String() string { return string(n) }

// MarshalJSON returns the literal unchanged, so that encoding/json output
// keeps every digit.
func (n Number) MarshalJSON() ([]byte, error) { return []byte(n), nil }
