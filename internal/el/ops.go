package el

import (
	"errors"
	"math"
	"reflect"
	"strings"
)

// isNumber reports whether v is an EL number.
func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

// wantsDouble applies the EL rule for + - * %: doubles are used when either
// operand is a double or a string that looks like one.
func wantsDouble(x, y any) bool {
	for _, v := range [2]any{x, y} {
		switch t := v.(type) {
		case float64:
			return true
		case string:
			if looksFloat(t) {
				return true
			}
		}
	}
	return false
}

// coercePair converts both operands with the same coercion, reporting the
// first operand that cannot be converted.
func coercePair[T any](x, y any, conv func(any) (T, error)) (a, b T, err error) {
	if a, err = conv(x); err != nil {
		return a, b, err
	}
	b, err = conv(y)
	return a, b, err
}

// applyArith computes a op b for +, - and * in the operands' own type.
func applyArith[T int64 | float64](op Op, a, b T) T {
	switch op {
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	}
	return a * b
}

// arith implements +, - and *: numeric only, null is 0, integers stay
// int64 (wrapping on overflow like Java longs).
func arith(op Op, x, y any) (any, error) {
	if x == nil && y == nil {
		return int64(0), nil
	}
	if wantsDouble(x, y) {
		a, b, err := coercePair(x, y, toDouble)
		if err != nil {
			return nil, err
		}
		return applyArith(op, a, b), nil
	}
	a, b, err := coercePair(x, y, toLong)
	if err != nil {
		return nil, err
	}
	return applyArith(op, a, b), nil
}

// divide implements / and div: always a double, so 10/2 is 5.0 and a
// division by zero is Infinity or NaN rather than an error.
func divide(x, y any) (any, error) {
	if x == nil && y == nil {
		return int64(0), nil
	}
	a, b, err := coercePair(x, y, toDouble)
	if err != nil {
		return nil, err
	}
	return a / b, nil
}

// modulo implements % and mod: Java remainder semantics (the sign follows
// the dividend), an integer remainder by zero is an error.
func modulo(x, y any) (any, error) {
	if x == nil && y == nil {
		return int64(0), nil
	}
	if wantsDouble(x, y) {
		a, b, err := coercePair(x, y, toDouble)
		if err != nil {
			return nil, err
		}
		return math.Mod(a, b), nil
	}
	a, b, err := coercePair(x, y, toLong)
	if err != nil {
		return nil, err
	}
	if b == 0 {
		return nil, errors.New("/ by zero")
	}
	return a % b, nil
}

// equal implements == with the EL coercion order: null only equals null,
// then double, long, boolean and string comparison depending on the
// operand types, then deep equality for other values.
func equal(x, y any) (bool, error) {
	if x == nil || y == nil {
		return x == nil && y == nil, nil
	}
	switch {
	case isFloat(x) || isFloat(y):
		a, b, err := coercePair(x, y, toDouble)
		if err != nil {
			return false, err
		}
		return a == b, nil
	case isInt(x) || isInt(y):
		a, b, err := coercePair(x, y, toLong)
		if err != nil {
			return false, err
		}
		return a == b, nil
	case isBool(x) || isBool(y):
		a, b, err := coercePair(x, y, toBool)
		if err != nil {
			return false, err
		}
		return a == b, nil
	case isString(x) || isString(y):
		return ToString(x) == ToString(y), nil
	}
	return reflect.DeepEqual(x, y), nil
}

func isFloat(v any) bool  { _, ok := v.(float64); return ok }
func isInt(v any) bool    { _, ok := v.(int64); return ok }
func isBool(v any) bool   { _, ok := v.(bool); return ok }
func isString(v any) bool { _, ok := v.(string); return ok }

// compare implements < > <= >=: null on either side is false (except that
// null <= null and null >= null hold, as identical operands), numbers
// compare numerically when either side is one, strings lexically,
// booleans false < true; anything else cannot be ordered.
func compare(op Op, x, y any) (bool, error) {
	if x == nil && y == nil {
		return op == OpLe || op == OpGe, nil
	}
	if x == nil || y == nil {
		return false, nil
	}
	var c int
	switch {
	case isFloat(x) || isFloat(y):
		a, b, err := coercePair(x, y, toDouble)
		if err != nil {
			return false, err
		}
		if math.IsNaN(a) || math.IsNaN(b) {
			return false, nil
		}
		c = cmp3(a < b, a > b)
	case isInt(x) || isInt(y):
		a, b, err := coercePair(x, y, toLong)
		if err != nil {
			return false, err
		}
		c = cmp3(a < b, a > b)
	case isString(x) || isString(y):
		c = compareJavaStrings(ToString(x), ToString(y))
	case isBool(x) && isBool(y):
		a, b := x.(bool), y.(bool)
		c = cmp3(!a && b, a && !b)
	default:
		return false, errors.New("cannot compare [" + typeName(x) + "] with [" + typeName(y) + "]")
	}
	switch op {
	case OpLt:
		return c < 0, nil
	case OpGt:
		return c > 0, nil
	case OpLe:
		return c <= 0, nil
	}
	return c >= 0, nil
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// compareJavaStrings orders strings by UTF-16 code units like
// String.compareTo; it differs from Go's byte order only for characters
// beyond the Basic Multilingual Plane versus U+E000..U+FFFF.
func compareJavaStrings(a, b string) int {
	if !hasHighRunes(a) || !hasHighRunes(b) {
		return strings.Compare(a, b)
	}
	ua, ub := utf16Units(a), utf16Units(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return cmp3(ua[i] < ub[i], ua[i] > ub[i])
		}
	}
	return cmp3(len(ua) < len(ub), len(ua) > len(ub))
}

func hasHighRunes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xEE {
			return true
		}
	}
	return false
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}
