package el

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// normalize widens Go numeric kinds to the two EL number types, int64 and
// float64, so the operators only ever meet those.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return v
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint:
		return int64(x)
	case uint64:
		return int64(x)
	case float32:
		return float64(x)
	}
	return v
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "java.lang.String"
	case bool:
		return "java.lang.Boolean"
	case int64:
		return "java.lang.Long"
	case float64:
		return "java.lang.Double"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map:
		return "java.util.Map"
	case reflect.Slice, reflect.Array:
		return "java.util.List"
	}
	return fmt.Sprintf("%T", v)
}

func cannotConvert(v any, to string) error {
	return fmt.Errorf("cannot convert [%s] of type [%s] to [%s]", ToString(v), typeName(v), to)
}

// ToString coerces a value to a string with the EL rules: nil is "",
// numbers print the way Java prints them (a double always shows a decimal
// point or an exponent: 5.0, 1.0E10), maps print like java.util.Map with
// sorted keys.
func ToString(v any) string {
	switch x := normalize(v).(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return FormatDouble(x)
	case fmt.Stringer:
		return x.String()
	case error:
		return x.Error()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		keys := rv.MapKeys()
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, ToString(k.Interface())+"="+ToString(rv.MapIndex(k).Interface()))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = ToString(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// FormatDouble prints f as java.lang.Double.toString does: plain decimal
// notation with at least one fractional digit for 1e-3 <= |f| < 1e7,
// otherwise computerized scientific notation ("1.0E10", "1.5E-5"); the
// digits are the shortest that round-trip but at least two, as specified
// since JDK 19 (older JDKs occasionally printed an extra digit).
func FormatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	// 'e' with shortest precision gives "d.ddde±XX": split digits and exponent.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	sci := f < 1e-3 || f >= 1e7
	if sci && len(s) > 1 && s[1] != '.' {
		// The scientific form always has two significant digits ("d.d") and
		// Java rounds to them: Double.MIN_VALUE is 4.9E-324, not 5.0E-324.
		s = strconv.FormatFloat(f, 'e', 1, 64)
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if !sci {
		var intPart, frac string
		if exp >= 0 {
			if len(digits) <= exp+1 {
				intPart = digits + strings.Repeat("0", exp+1-len(digits))
			} else {
				intPart, frac = digits[:exp+1], digits[exp+1:]
			}
		} else {
			intPart = "0"
			frac = strings.Repeat("0", -exp-1) + digits
		}
		if frac == "" {
			frac = "0"
		}
		return sign + intPart + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// looksFloat reports whether a string operand makes arithmetic use doubles:
// the EL rule is "contains '.', 'e' or 'E'".
func looksFloat(s string) bool { return strings.ContainsAny(s, ".eE") }

// parseJavaLong mirrors Long.valueOf: optional sign, decimal digits, no
// surrounding spaces.
func parseJavaLong(s string) (int64, bool) {
	if s == "" || s == "+" || s == "-" {
		return 0, false
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

// parseJavaDouble mirrors Double.valueOf: surrounding whitespace (chars up
// to U+0020) is ignored, a trailing d/D/f/F type suffix is allowed, and
// "NaN"/"Infinity" are spelled the Java way.
func parseJavaDouble(s string) (float64, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if s == "" {
		return 0, false
	}
	body := s
	if last := body[len(body)-1]; last == 'd' || last == 'D' || last == 'f' || last == 'F' {
		body = body[:len(body)-1]
	}
	unsigned := strings.TrimLeft(body, "+-")
	if len(body)-len(unsigned) > 1 {
		return 0, false
	}
	switch unsigned {
	case "NaN":
		return math.NaN(), body == s
	case "Infinity":
		if body != s {
			return 0, false
		}
		if strings.HasPrefix(body, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	for _, c := range unsigned {
		// reject Go-only spellings ("inf", "0x1p3", "1_000") Java does not take
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true // Java saturates to Infinity or 0
		}
		return 0, false
	}
	return f, true
}

// toLong coerces to an EL Long (used for integer arithmetic and long
// parameters).
func toLong(v any) (int64, error) {
	switch x := normalize(v).(type) {
	case nil:
		return 0, nil
	case int64:
		return x, nil
	case float64:
		return javaD2L(x), nil
	case string:
		if x == "" {
			return 0, nil
		}
		if i, ok := parseJavaLong(x); ok {
			return i, nil
		}
		return 0, cannotConvert(v, "java.lang.Long")
	}
	return 0, cannotConvert(v, "java.lang.Long")
}

// javaD2L converts like Java's (long) cast: NaN is 0, out of range
// saturates.
func javaD2L(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// toDouble coerces to an EL Double.
func toDouble(v any) (float64, error) {
	switch x := normalize(v).(type) {
	case nil:
		return 0, nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		if x == "" {
			return 0, nil
		}
		if f, ok := parseJavaDouble(x); ok {
			return f, nil
		}
		return 0, cannotConvert(v, "java.lang.Double")
	}
	return 0, cannotConvert(v, "java.lang.Double")
}

// toBool coerces to an EL Boolean: nil and "" are false, a string is true
// only if it equals "true" ignoring case; numbers and maps are errors.
func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		return strings.EqualFold(x, "true"), nil
	}
	return false, cannotConvert(v, "java.lang.Boolean")
}

// coerceArg converts a function argument to its declared parameter type.
func coerceArg(v any, t Type) (any, error) {
	switch t {
	case String:
		return ToString(v), nil
	case Long:
		return toLong(v)
	case Double:
		return toDouble(v)
	case Bool:
		return toBool(v)
	}
	return v, nil
}

// isEmpty implements the empty operator: nil, "", and empty maps, slices
// and arrays are empty.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool, int64, float64:
		return false
	case map[string]any:
		return len(x) == 0
	case map[string]string:
		return len(x) == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
