package el

import (
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Sizes of the basic EL constants KB..PB (spec: wf 4.2.1), all longs.
const (
	KB int64 = 1024
	MB       = KB * 1024
	GB       = MB * 1024
	TB       = GB * 1024
	PB       = TB * 1024
)

// TimestampLayout is the Oozie date format yyyy-MM-dd'T'HH:mm'Z' in Go's
// notation.
const TimestampLayout = "2006-01-02T15:04Z"

// Basic returns a new registry with the basic EL constants and functions
// of spec sections 4.2.1 and 4.2.2, available in every Oozie EL phase.
//
// The functions keep Oozie's Java null handling, which only shows in
// direct calls (Registry.CallDirect): through EL text a null argument to a
// String parameter has already become "". firstNotNull takes Objects, so
// it sees real nulls either way.
func Basic() *Registry {
	r := NewRegistry()
	r.Const("KB", KB)
	r.Const("MB", MB)
	r.Const("GB", GB)
	r.Const("TB", TB)
	r.Const("PB", PB)
	s := String
	r.Define("", "firstNotNull", []Type{Any, Any}, firstNotNull)
	r.Define("", "concat", []Type{s, s}, concat)
	r.Define("", "replaceAll", []Type{s, s, s}, replaceAllFunc)
	r.Define("", "appendAll", []Type{s, s, s}, appendAllFunc)
	r.Define("", "trim", []Type{s}, trimFunc)
	r.Define("", "urlEncode", []Type{s}, urlEncodeFunc)
	r.Define("", "timestamp", nil, timestampFunc)
	r.Define("", "toJsonStr", []Type{Any}, toJSONStr)
	r.Define("", "toPropertiesStr", []Type{Any}, toPropertiesStr)
	r.Define("", "toConfigurationStr", []Type{Any}, toConfigurationStr)
	return r
}

// argString reads a String argument of a direct call, where nil is a Java
// null and is reported as not ok.
func argString(v any) (string, bool) {
	if v == nil {
		return "", false
	}
	return ToString(v), true
}

func firstNotNull(c *Call) (any, error) {
	if c.Args[0] != nil {
		return c.Args[0], nil
	}
	return c.Args[1], nil
}

func concat(c *Call) (any, error) {
	a, _ := argString(c.Args[0])
	b, _ := argString(c.Args[1])
	if err := checkLen("concat", len(a)+len(b)); err != nil {
		return nil, err
	}
	return a + b, nil
}

// replaceAllFunc is String.replaceAll: a null source returns null, a null
// regex leaves the source unchanged, a null replacement counts as "".
func replaceAllFunc(c *Call) (any, error) {
	src, ok := argString(c.Args[0])
	if !ok {
		return nil, nil
	}
	regex, ok := argString(c.Args[1])
	if !ok {
		return src, nil
	}
	repl, _ := argString(c.Args[2])
	return ReplaceAll(src, regex, repl)
}

// appendAllFunc adds append to every piece of src split on the delimiter
// regex and joins the pieces back with the delimiter text. A null source
// or delimiter returns the source unchanged.
func appendAllFunc(c *Call) (any, error) {
	src, ok := argString(c.Args[0])
	if !ok {
		return nil, nil
	}
	delim, ok := argString(c.Args[2])
	if !ok {
		return src, nil
	}
	add, _ := argString(c.Args[1])
	if err := checkLen("appendAll", len(src)); err != nil {
		return nil, err
	}
	parts, err := Split(src, delim)
	if err != nil {
		return nil, err
	}
	// Every piece gains add and keeps its delimiter: know the size before
	// building it, so appendAll(x, big, '') costs nothing.
	if err := checkLen("appendAll", len(src)+(len(parts)+1)*len(add)+len(parts)*len(delim)); err != nil {
		return nil, err
	}
	var b strings.Builder
	// Java 8 stopped returning the leading empty piece for a zero-width
	// match at the start; Oozie puts the append back to keep the Java 7
	// result, which is why appendAll('ab','X','') starts with X.
	if strings.HasPrefix(src, delim) && len(parts) > 0 && parts[0] != "" {
		b.WriteString(add)
	}
	for i, p := range parts {
		b.WriteString(p)
		b.WriteString(add)
		if i < len(parts)-1 {
			b.WriteString(delim)
		}
	}
	return b.String(), nil
}

// trimFunc strips leading and trailing characters up to U+0020, like
// Java's String.trim; null becomes "".
func trimFunc(c *Call) (any, error) {
	s, _ := argString(c.Args[0])
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }), nil
}

func urlEncodeFunc(c *Call) (any, error) {
	s, _ := argString(c.Args[0])
	return URLEncode(s), nil
}

// URLEncode encodes s as application/x-www-form-urlencoded UTF-8, exactly
// like java.net.URLEncoder: letters, digits and ".-*_" stay, space becomes
// "+", every other byte is %XX with upper-case hex.
func URLEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func timestampFunc(c *Call) (any, error) {
	return c.Now().UTC().Format(TimestampLayout), nil
}

// stringMap reads a Map<String,String> argument; values are coerced to
// strings, nil values are dropped the way Properties would reject them.
func stringMap(v any) (map[string]string, error) {
	switch m := v.(type) {
	case map[string]string:
		return m, nil
	case nil:
		return nil, errors.New("null map")
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, cannotConvert(v, "java.util.Map")
	}
	out := make(map[string]string, rv.Len())
	for _, k := range rv.MapKeys() {
		val := rv.MapIndex(k).Interface()
		if val == nil {
			continue
		}
		out[k.String()] = ToString(val)
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toJSONStr renders the map as a JSON object (keys sorted, escaping as
// json-simple does, "/" included) and XML-escapes the result so it can sit
// inside a configuration value.
func toJSONStr(c *Call) (any, error) {
	if c.Args[0] == nil {
		return "null", nil
	}
	m, err := stringMap(c.Args[0])
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, k)
		b.WriteByte(':')
		writeJSONString(&b, m[k])
	}
	b.WriteByte('}')
	return escapedResult(c, "toJsonStr", b.String())
}

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
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
		default:
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x2000 && r <= 0x20ff) {
				fmt.Fprintf(b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// toPropertiesStr renders the map in java.util.Properties text format
// (sorted keys, Properties escaping) and XML-escapes it. Unlike
// Properties.store it writes no date comment, so the output is
// reproducible.
func toPropertiesStr(c *Call) (any, error) {
	m, err := stringMap(c.Args[0])
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, k := range sortedKeys(m) {
		b.WriteString(escapeProperty(k, true))
		b.WriteByte('=')
		b.WriteString(escapeProperty(m[k], false))
		b.WriteByte('\n')
	}
	return escapedResult(c, "toPropertiesStr", b.String())
}

// escapeProperty applies the escaping of Properties.store: backslash,
// separators and comment characters are escaped, spaces in keys (and a
// leading space in values), control characters and non-ASCII as \uXXXX.
func escapeProperty(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case ' ':
			if key || i == 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(' ')
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			switch {
			case r < 0x20 || r > 0x7e && r < 0x10000:
				fmt.Fprintf(&b, `\u%04X`, r)
			case r >= 0x10000:
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04X\u%04X`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// toConfigurationStr renders the map as a Hadoop configuration XML
// document and XML-escapes the whole document.
func toConfigurationStr(c *Call) (any, error) {
	m, err := stringMap(c.Args[0])
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n<configuration>\n")
	for _, k := range sortedKeys(m) {
		b.WriteString("  <property>\n    <name>")
		xml.EscapeText(&b, []byte(k))
		b.WriteString("</name>\n    <value>")
		xml.EscapeText(&b, []byte(m[k]))
		b.WriteString("</value>\n  </property>\n")
	}
	b.WriteString("</configuration>\n")
	return escapedResult(c, "toConfigurationStr", b.String())
}

// EscapeXML replaces < > & " and ' with character entities (' as &#039;),
// the escaping Oozie applies to the to*Str results.
func EscapeXML(s string) string {
	if !strings.ContainsAny(s, `<>&"'`) {
		return s
	}
	return xmlEscaper.Replace(s)
}

var xmlEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", `"`, "&quot;", "'", "&#039;")

// escapedResult XML-escapes the result of a to*Str function, refusing it
// over MaxStringLen before and after escaping (which can grow it sixfold).
// An evaluator with NoXMLEscape gets the text as is (see there).
func escapedResult(c *Call, what, s string) (any, error) {
	if err := checkLen(what, len(s)); err != nil {
		return nil, err
	}
	if c.ev != nil && c.ev.NoXMLEscape {
		return s, nil
	}
	s = EscapeXML(s)
	if err := checkLen(what, len(s)); err != nil {
		return nil, err
	}
	return s, nil
}
