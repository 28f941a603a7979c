package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The oozie CLI prints some server values the way its Java libraries turn
// them back into text: JSON objects as json-simple's JSONObject (a
// java.util.HashMap) writes them, numbers as java.lang.Long and Double do.
// gozie's CLI prints the same text, so that scripts reading either work.

// javaJSONText renders a JSON value as json-simple's toJSONString would
// after parsing it: objects with their keys in HashMap iteration order,
// '/' escaped, integers as Long and other numbers as Double.
func javaJSONText(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	writeJavaJSON(&b, v)
	return b.String(), nil
}

// orderedObject is a JSON object with its keys in document order (later
// duplicates replace the value in place, as a HashMap put does).
type orderedObject struct {
	keys []string
	vals map[string]any
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &orderedObject{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

func writeJavaJSON(b *strings.Builder, v any) {
	switch t := v.(type) {
	case *orderedObject:
		b.WriteByte('{')
		for i, k := range javaHashMapOrder(t.keys) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(javaJSONEscape(k))
			b.WriteString(`":`)
			writeJavaJSON(b, t.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJavaJSON(b, x)
		}
		b.WriteByte(']')
	case string:
		b.WriteByte('"')
		b.WriteString(javaJSONEscape(t))
		b.WriteByte('"')
	case json.Number:
		b.WriteString(javaNumber(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
}

// javaJSONEscape escapes a string as json-simple's JSONValue.escape does.
func javaJSONEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '/':
			b.WriteString(`\/`)
		default:
			if r <= 0x1F || (r >= 0x7F && r <= 0x9F) || (r >= 0x2000 && r <= 0x20FF) {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// javaNumber prints a JSON number as the Long or Double json-simple parses
// it into: without a fraction or exponent it is a Long.
func javaNumber(n json.Number) string {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
	}
	f, err := n.Float64()
	if err != nil {
		return s
	}
	return javaDouble(f)
}

// javaDouble formats a float64 as java.lang.Double.toString: plain decimal
// with at least one fraction digit for magnitudes in [1e-3, 1e7), else
// computerized scientific notation such as 1.0E7.
func javaDouble(f float64) string {
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
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// javaHashMapOrder returns keys in the order a java.util.HashMap with the
// default capacity iterates them after they were put in the given order:
// by bucket of the spread String.hashCode in the final table, insertion
// order within a bucket (resizes keep it).
func javaHashMapOrder(keys []string) []string {
	capacity := 16
	for float64(len(keys)) > float64(capacity)*0.75 {
		capacity *= 2
	}
	buckets := make([][]string, capacity)
	for _, k := range keys {
		h := javaStringHash(k)
		h ^= int32(uint32(h) >> 16)
		i := int(uint32(h) & uint32(capacity-1))
		buckets[i] = append(buckets[i], k)
	}
	out := make([]string, 0, len(keys))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

// javaStringHash is java.lang.String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	return h
}
