package el

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestBasicDirect calls the basic functions the way Java code would, with
// real nulls (spec: wf 4.2.2 null rules).
func TestBasicDirect(t *testing.T) {
	tests := []struct {
		fn   string
		args []any
		want any
	}{
		{"firstNotNull", []any{"a", "b"}, "a"},
		{"firstNotNull", []any{nil, "b"}, "b"},
		{"firstNotNull", []any{nil, nil}, nil},
		{"firstNotNull", []any{nil, 3}, int64(3)},
		{"concat", []any{"a", "b"}, "ab"},
		{"concat", []any{nil, "b"}, "b"},
		{"concat", []any{"a", nil}, "a"},
		{"concat", []any{nil, nil}, ""},
		{"replaceAll", []any{"abcbcd", "bc", "ef"}, "aefefd"},
		{"replaceAll", []any{"d1,d2,d3", ",", " "}, "d1 d2 d3"},
		{"replaceAll", []any{"abcbcd", "bcb", "yyy"}, "ayyycd"},
		{"replaceAll", []any{"abcbcd", nil, "yyy"}, "abcbcd"},
		{"replaceAll", []any{"abcbcd", "bcb", nil}, "acd"},
		{"replaceAll", []any{nil, "bcb", "yyy"}, nil},
		{"appendAll", []any{"/a/b/,/c/b/,/c/d/", "ADD", ","}, "/a/b/ADD,/c/b/ADD,/c/d/ADD"},
		{"appendAll", []any{"/a/b/", "ADD", ","}, "/a/b/ADD"},
		{"appendAll", []any{"/a/b/", nil, ","}, "/a/b/"},
		{"appendAll", []any{"/a/b/,/c/d/", "ADD", nil}, "/a/b/,/c/d/"},
		{"appendAll", []any{nil, "ADD", ","}, nil},
		{"appendAll", []any{"ab", "ADD", ""}, "ADDaADDbADD"},
		{"appendAll", []any{"a|b", "X", "|"}, "aX||X|bX"},
		{"appendAll", []any{",a", "X", ","}, "X,aX"},
		{"appendAll", []any{"a,,", "X", ","}, "aX"},
		{"appendAll", []any{"", "X", ","}, "X"},
		{"trim", []any{"  a b \t\n"}, "a b"},
		{"trim", []any{nil}, ""},
		{"urlEncode", []any{" "}, "+"},
		{"urlEncode", []any{nil}, ""},
		{"urlEncode", []any{"a b&c=d/é~*._-"}, "a+b%26c%3Dd%2F%C3%A9%7E*._-"},
		{"toJsonStr", []any{map[string]string{"a": "A", "b": `&"/`}}, `{&quot;a&quot;:&quot;A&quot;,&quot;b&quot;:&quot;&amp;\&quot;\/&quot;}`},
		{"toJsonStr", []any{nil}, "null"},
		{"toPropertiesStr", []any{map[string]string{"a": "A", "b": "&", "k y": " v=1"}}, "a=A\nb=&amp;\nk\\ y=\\ v\\=1\n"},
		{"toPropertiesStr", []any{map[string]any{"u": "é\n", "skip": nil}}, "u=\\u00E9\\n\n"},
	}
	r := Basic()
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			got, err := r.CallDirect("", tt.fn, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s%q = %#v, want %#v", tt.fn, tt.args, got, tt.want)
			}
		})
	}
}

// TestBasicThroughEL checks the same functions called from EL text, where
// a null argument to a String parameter has become "".
func TestBasicThroughEL(t *testing.T) {
	ev := &Evaluator{
		Funcs: Basic(),
		Vars:  MapVars{"data": map[string]string{"b": "B"}, "s": "x y"},
		Now:   func() time.Time { return time.Date(1997, 7, 16, 19, 20, 59, 0, time.UTC) },
	}
	tests := []struct{ expr, want string }{
		{"${firstNotNull(null, 'b')}", "b"},
		{"${firstNotNull(null, null)}", ""},
		{"${concat(null, null)}", ""},
		{"${replaceAll(null, 'a', 'b')}", ""},
		{"${replaceAll('abc', null, 'b')}", "babbbcb"},
		{"${replaceAll('abc', 'b', null)}", "ac"},
		{`${replaceAll('2009-01-02', '(\\d+)-(\\d+)-(\\d+)', '$3/$2/$1')}`, "02/01/2009"},
		{`${replaceAll('a.b', '[.]', '\\$')}`, "a$b"},
		{"${appendAll('/a/b/,/c/b/,/c/d/', 'ADD', ',')}", "/a/b/ADD,/c/b/ADD,/c/d/ADD"},
		{"${appendAll('a,b', null, ',')}", "a,b"},
		{"${appendAll('a,b', 'X', null)}", "XaX,XbX"}, // "" delimiter, as Jasper passes it
		{"${trim(' ')}", ""},
		{"${urlEncode(s)}", "x+y"},
		{"${urlEncode(null)}", ""},
		{"${timestamp()}", "1997-07-16T19:20Z"},
		{"${toPropertiesStr(data)}", "b=B\n"},
		{"${toJsonStr(data)}", "{&quot;b&quot;:&quot;B&quot;}"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := ev.EvalString(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToConfigurationStr(t *testing.T) {
	got, err := Basic().CallDirect("", "toConfigurationStr", map[string]string{"b": "<&>", "a": "A"})
	if err != nil {
		t.Fatal(err)
	}
	s := got.(string)
	if strings.ContainsAny(s, "<>\"'") {
		t.Errorf("not XML-escaped: %s", s)
	}
	plain := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#039;", "'", "&amp;", "&").Replace(s)
	for _, want := range []string{"<configuration>", "<name>a</name>", "<value>A</value>", "<name>b</name>", "<value>&lt;&amp;&gt;</value>"} {
		if !strings.Contains(plain, want) {
			t.Errorf("%s\ndoes not contain %s", plain, want)
		}
	}
	if strings.Index(plain, "<name>a</name>") > strings.Index(plain, "<name>b</name>") {
		t.Error("properties are not sorted")
	}
	if _, err := Basic().CallDirect("", "toConfigurationStr", "not a map"); err == nil {
		t.Error("want an error for a string argument")
	}
}

func TestReplaceAllJava(t *testing.T) {
	tests := []struct {
		src, regex, repl, want string
		err                    bool
	}{
		{"abc", "", "-", "-a-b-c-", false},
		{"aaa", "a", "$0$0", "aaaaaa", false},
		{"ab", "(a)(b)", "$2$1", "ba", false},
		{"ab", "(a)(b)", "$21", "b1", false}, // no group 21: group 2 then "1"
		{"ab", "(?<first>a)", "${first}!", "a!b", false},
		{"a", "a", `\\`, `\`, false},
		{"a", "a", `x\y`, "xy", false},
		{"a", "a", "$", "", true},
		{"a", "a", "$x", "", true},
		{"a", "a", "$2", "", true},
		{"a", "a", `\`, "", true},
		{"a", "a", "${nope}", "", true},
		{"a", "(?=a)", "x", "", true}, // lookahead: not in RE2
		{"a", "(a", "x", "", true},
	}
	for _, tt := range tests {
		got, err := ReplaceAll(tt.src, tt.regex, tt.repl)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ReplaceAll(%q, %q, %q) = %q, %v; want %q (error %v)", tt.src, tt.regex, tt.repl, got, err, tt.want, tt.err)
		}
	}
}

func TestSplitJava(t *testing.T) {
	tests := []struct {
		src, regex string
		want       []string
	}{
		{"a,b,c", ",", []string{"a", "b", "c"}},
		{"a,b,,", ",", []string{"a", "b"}},
		{",a", ",", []string{"", "a"}},
		{"ab", "", []string{"a", "b"}},
		{"", "", []string{""}},
		{"", ",", []string{""}},
		{",", ",", nil},
		{"abc", "x", []string{"abc"}},
		{"a1b22c", `\d+`, []string{"a", "b", "c"}},
		{"a|b", "|", []string{"a", "|", "b"}},
	}
	for _, tt := range tests {
		got, err := Split(tt.src, tt.regex)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("Split(%q, %q) = %q, want %q", tt.src, tt.regex, got, tt.want)
		}
	}
}

// An evaluator with NoXMLEscape (one resolving into a parsed tree) gets
// the to*Str texts as a program would after Oozie's second parse; the
// same call without it keeps Oozie's escaping.
func TestToStrNoXMLEscape(t *testing.T) {
	data := map[string]string{"a": `x"y`, "b": "<&>"}
	tests := []struct {
		expr, escaped, plain string
	}{
		{"${toJsonStr(data)}", `{&quot;a&quot;:&quot;x\&quot;y&quot;,&quot;b&quot;:&quot;&lt;&amp;&gt;&quot;}`, `{"a":"x\"y","b":"<&>"}`},
		{"${toPropertiesStr(data)}", "a=x&quot;y\nb=&lt;&amp;&gt;\n", "a=x\"y\nb=<&>\n"},
		{"${toJsonStr(null)}", "null", "null"},
	}
	for _, tt := range tests {
		for _, noEscape := range []bool{false, true} {
			ev := &Evaluator{Funcs: Basic(), Vars: MapVars{"data": data}, NoXMLEscape: noEscape}
			got, err := ev.EvalString(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.escaped
			if noEscape {
				want = tt.plain
			}
			if got != want {
				t.Errorf("%s (NoXMLEscape %v) = %q, want %q", tt.expr, noEscape, got, want)
			}
		}
	}
	ev := &Evaluator{Funcs: Basic(), Vars: MapVars{"data": data}, NoXMLEscape: true}
	doc, err := ev.EvalString("${toConfigurationStr(data)}")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "<value>&lt;&amp;&gt;</value>") || !strings.HasPrefix(doc, "<?xml") {
		t.Errorf("toConfigurationStr = %s, want the document itself, its values escaped once", doc)
	}
}
