package conf

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// kv is a compact expected property list: name, value, name, value, ...
type kv []string

func (e kv) names() []string {
	var n []string
	for i := 0; i < len(e); i += 2 {
		n = append(n, e[i])
	}
	return n
}

func (e kv) m() map[string]string {
	m := map[string]string{}
	for i := 0; i < len(e); i += 2 {
		m[e[i]] = e[i+1]
	}
	return m
}

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want kv
	}{
		// separators
		{"equals", "a=b", kv{"a", "b"}},
		{"colon", "a:b", kv{"a", "b"}},
		{"space", "a b", kv{"a", "b"}},
		{"tab", "a\tb", kv{"a", "b"}},
		{"form feed", "a\fb", kv{"a", "b"}},
		{"spaces around equals", "a  =  b", kv{"a", "b"}},
		{"space then colon", "a \t: b", kv{"a", "b"}},
		{"only first separator", "a=b=c:d", kv{"a", "b=c:d"}},
		{"second equals is value", "a = = b", kv{"a", "= b"}},
		{"colon then equals", "a:=b", kv{"a", "=b"}},
		{"whitespace separator keeps later equals", "a b=c", kv{"a", "b=c"}},
		{"trailing value whitespace kept", "a=b  ", kv{"a", "b  "}},
		{"leading line whitespace", "   \t a=b", kv{"a", "b"}},
		{"key without value", "a", kv{"a", ""}},
		{"key with separator only", "a=", kv{"a", ""}},
		{"key with trailing blanks", "a   ", kv{"a", ""}},
		{"empty key", "=b", kv{"", "b"}},
		{"empty key colon", ":b", kv{"", "b"}},
		{"dotted key", "oozie.wf.application.path=hdfs://nn/app", kv{"oozie.wf.application.path", "hdfs://nn/app"}},
		{"EL value untouched", "x=${wf:conf('y')}", kv{"x", "${wf:conf('y')}"}},

		// escapes in keys
		{"escaped equals in key", `a\=b=c`, kv{"a=b", "c"}},
		{"escaped colon in key", `a\:b:c`, kv{"a:b", "c"}},
		{"escaped space in key", `a\ b c`, kv{"a b", "c"}},
		{"escaped hash and bang", `\#a=\!b`, kv{"#a", "!b"}},
		{"escaped backslash before separator", `a\\=b`, kv{`a\`, "b"}},
		{"unknown escape is the char", `\a\b\c=\x\y\z`, kv{"abc", "xyz"}},
		{"escaped non-ASCII", `k=\é`, kv{"k", "é"}},

		// escapes in values
		{"control escapes", `a=\t\n\r\f`, kv{"a", "\t\n\r\f"}},
		{"leading escaped space", `a=\  b`, kv{"a", "  b"}},
		{"unicode escape", `a=\u0041\u00e9\u20AC`, kv{"a", "Aé€"}},
		{"unicode escape in key", `\u006b=v`, kv{"k", "v"}},
		{"unicode escaped separator is not one", `a\u003db=c`, kv{"a=b", "c"}},
		{"surrogate pair", `a=\uD83D\uDE00`, kv{"a", "😀"}},
		{"lone high surrogate", `a=\uD83Dx`, kv{"a", "\uFFFDx"}},
		{"lone low surrogate", `a=\uDE00`, kv{"a", "\uFFFD"}},
		{"high then high", `a=\uD83D\uD83D\uDE00`, kv{"a", "\uFFFD😀"}},
		{"high at end", `a=\uD83D`, kv{"a", "\uFFFD"}},
		{"raw UTF-8", "clé=välue €", kv{"clé", "välue €"}},
		{"raw supplementary", "a=😀", kv{"a", "😀"}},

		// comments and blank lines
		{"hash comment", "# c\na=b", kv{"a", "b"}},
		{"bang comment", "! c\na=b", kv{"a", "b"}},
		{"indented comment", "   # c\na=b", kv{"a", "b"}},
		{"hash inside value", "a=b#c", kv{"a", "b#c"}},
		{"hash after key", "a #c", kv{"a", "#c"}},
		{"comment not continued", "# c\\\na=b", kv{"a", "b"}},
		{"blank lines", "\n\n  \t\n a=b\n\n", kv{"a", "b"}},
		{"empty input", "", nil},
		{"only comments", "#x\n!y\n", nil},

		// line ends and continuations
		{"CRLF", "a=b\r\nc=d\r\n", kv{"a", "b", "c", "d"}},
		{"CR", "a=b\rc=d\r", kv{"a", "b", "c", "d"}},
		{"mixed", "a=b\nc=d\r\ne=f\rg=h", kv{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{"continuation", "a=b\\\n   c", kv{"a", "bc"}},
		{"continuation CRLF", "a=b\\\r\n\tc\r\nd=e", kv{"a", "bc", "d", "e"}},
		{"continuation CR", "a=b\\\r  c\rd=e", kv{"a", "bc", "d", "e"}},
		{"continuation in key", "fo\\\n  o=bar", kv{"foo", "bar"}},
		{"continuation before separator", "a\\\n  =b", kv{"a", "b"}},
		{"multiple continuations", "a=1,\\\n 2,\\\n 3", kv{"a", "1,2,3"}},
		{"continued line is not a comment", "a=b\\\n  #c", kv{"a", "b#c"}},
		{"even backslashes do not continue", "a=b\\\\\nc=d", kv{"a", `b\`, "c", "d"}},
		{"odd backslashes continue", "a=b\\\\\\\nc", kv{"a", `b\c`}},
		{"blank line ends continuation", "a=b\\\n   \nc=d", kv{"a", "b", "c", "d"}},
		{"continuation to empty line only", "\\\n\nc=d", kv{"c", "d"}},
		{"trailing backslash at EOF", "a=b\\", kv{"a", "b"}},
		{"trailing backslash newline EOF", "a=b\\\n", kv{"a", "b"}},
		// JDK reader quirks, checked against java.util.Properties.
		{"lone backslash is an empty definition", "\\", kv{"", ""}},
		{"backslash LF at end is an empty definition", "\\\n", kv{"", ""}},
		{"backslash CRLF at end is nothing", "\\\r\n", nil},
		{"backslash then blanks is nothing", "\\\n  ", nil},
		{"line after empty continuation can be a comment", "\\\n  #c\na=b", kv{"a", "b"}},
		{"line after empty continuation starts afresh", "  \\\n  k v", kv{"k", "v"}},

		// duplicates
		{"later wins", "a=1\nb=2\na=3", kv{"a", "3", "b", "2"}},

		// encodings
		{"BOM ignored", "\uFEFFa=b", kv{"a", "b"}},
		{"latin-1 fallback", "a=caf\xe9", kv{"a", "café"}},
		{"latin-1 key", "\xe9=1", kv{"é", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseProperties(strings.NewReader(tt.in), "job.properties")
			if err != nil {
				t.Fatalf("ParseProperties(%q): %v", tt.in, err)
			}
			if got, want := c.Names(), tt.want.names(); !slices.Equal(got, want) {
				t.Errorf("names = %q, want %q", got, want)
			}
			if got, want := c.ToMap(), tt.want.m(); !maps.Equal(got, want) {
				t.Errorf("map = %q, want %q", got, want)
			}
		})
	}
}

func TestParsePropertiesSourceAndLine(t *testing.T) {
	in := "# header\n\na=1\nb=2\\\n  3\nc=4\n"
	c, err := ParseProperties(strings.NewReader(in), "job.properties")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		line int
	}{{"a", 3}, {"b", 4}, {"c", 6}}
	for _, tt := range tests {
		p, ok := c.Lookup(tt.name)
		if !ok || p.Source != "job.properties" || p.Line != tt.line {
			t.Errorf("Lookup(%q) = %+v, want source job.properties line %d", tt.name, p, tt.line)
		}
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short escape", `a=\u12`, `job.properties:1: malformed \uxxxx escape`},
		{"bad hex", "x=1\na=\\u12G4", `job.properties:2: malformed \uxxxx escape`},
		{"in key", "\n\n\\uZZZZ=1", `job.properties:3: malformed \uxxxx escape`},
		{"on continuation line", "a=b\\\n c\\\n  \\u00", `job.properties:3: malformed \uxxxx escape`},
		{"key then value line", "k\\\n \\u0=v", `job.properties:2: malformed \uxxxx escape`},
		{"value on continuation", "k=\\\n \\uxyzw", `job.properties:2: malformed \uxxxx escape`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProperties(strings.NewReader(tt.in), "job.properties")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err is %T, want *ParseError", err)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParsePropertiesReadError(t *testing.T) {
	_, err := ParseProperties(failingReader{}, "x.properties")
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteProperties(t *testing.T) {
	tests := []struct {
		name  string
		props kv
		want  string
	}{
		{"plain", kv{"a", "b"}, "a=b\n"},
		{"key spaces", kv{"a b", "c d"}, "a\\ b=c d\n"},
		{"leading value space", kv{"k", "  v"}, "k=\\  v\n"},
		{"separators and comments", kv{"#a=b:c!", "=:#!"}, `\#a\=b\:c\!=\=\:\#\!` + "\n"},
		{"backslash", kv{`a\b`, `c\`}, `a\\b=c\\` + "\n"},
		{"controls", kv{"k", "\t\n\r\f\x01\x7f"}, `k=\t\n\r\f\u0001\u007F` + "\n"},
		{"non-ASCII stays UTF-8", kv{"clé", "€😀"}, "clé=€😀\n"},
		{"BOM escaped", kv{"\uFEFFk", "v"}, `\uFEFFk=v` + "\n"},
		{"empty", kv{"", ""}, "=\n"},
		{"order kept", kv{"z", "1", "a", "2"}, "z=1\na=2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			for i := 0; i < len(tt.props); i += 2 {
				c.Set(tt.props[i], tt.props[i+1])
			}
			var buf bytes.Buffer
			if err := c.WriteProperties(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
			back, err := ParseProperties(&buf, "back")
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(back.ToMap(), c.ToMap()) {
				t.Errorf("round trip = %q, want %q", back.ToMap(), c.ToMap())
			}
		})
	}
}
