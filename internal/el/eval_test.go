package el

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// counters reads 0 for undefined counters, like hadoop:counters.
type counters map[string]int64

func (c counters) Property(name string) (any, bool) { return c[name], true }

func testEvaluator() *Evaluator {
	r := Basic()
	r.Const("RECORDS", "org.apache.hadoop.mapred.Task$Counter")
	r.Const("MAP_IN", "MAP_INPUT_RECORDS")
	r.Define("wf", "id", nil, func(c *Call) (any, error) { return c.Context.(string), nil })
	r.Define("wf", "run", nil, func(*Call) (any, error) { return 2, nil })
	r.Define("", "typeOf", []Type{Any}, func(c *Call) (any, error) { return fmt.Sprintf("%T", c.Args[0]), nil })
	r.Define("t", "long", []Type{Long}, func(c *Call) (any, error) { return fmt.Sprintf("%T %v", c.Args[0], c.Args[0]), nil })
	r.Define("t", "double", []Type{Double}, func(c *Call) (any, error) { return fmt.Sprintf("%T %v", c.Args[0], c.Args[0]), nil })
	r.Define("t", "bool", []Type{Bool}, func(c *Call) (any, error) { return fmt.Sprintf("%T %v", c.Args[0], c.Args[0]), nil })
	r.Define("t", "fail", nil, func(*Call) (any, error) { return nil, errors.New("boom") })
	r.Define("hadoop", "counters", []Type{String}, func(c *Call) (any, error) {
		return map[string]map[string]int64{"org.apache.hadoop.mapred.Task$Counter": {"MAP_INPUT_RECORDS": 33}}, nil
	})
	r.Define("t", "sparse", nil, func(*Call) (any, error) { return counters{"A": 1}, nil })
	return &Evaluator{
		Funcs: r,
		Vars: MapVars{
			"s10": "10", "s15": "1.5", "str": "abc", "empty": "", "nul": nil,
			"i": int64(7), "n": 3, "f": 2.5, "yes": true, "TRUE": "TRUE",
			"m":    map[string]any{"b": "B", "n": int64(1), "inner": map[string]string{"k": "v"}},
			"em":   map[string]any{},
			"list": []string{"x", "y"},
			"KB":   "shadowed",
		},
		Context: "wf-1",
		Now:     func() time.Time { return time.Date(2009, 7, 16, 19, 20, 33, 0, time.FixedZone("x", 3600)) },
	}
}

func TestEvalValues(t *testing.T) {
	ev := testEvaluator()
	tests := []struct {
		expr string
		want any
	}{
		// literals and typed single-segment results
		{"${1}", int64(1)},
		{"${1.0}", 1.0},
		{"${'a'}", "a"},
		{"${true}", true},
		{"${null}", nil},
		{"${n}", int64(3)},
		{"${nul}", nil},
		{"${wf:run()}", int64(2)},
		{"${wf:id()}", "wf-1"},
		{"x${1}", "x1"},
		{"${1}${2}", "12"},
		{"plain", "plain"},
		// arithmetic
		{"${1 + 2}", int64(3)},
		{"${'10' + 5}", int64(15)},
		{"${s10 + s10}", int64(20)},
		{"${'1.5' + 1}", 2.5},
		{"${s15 * 2}", 3.0},
		{"${'1e1' + 1}", 11.0},
		{"${10 / 2}", 5.0},
		{"${10 div 4}", 2.5},
		{"${1 / 0}", math.Inf(1)},
		{"${7 % 3}", int64(1)},
		{"${-7 % 3}", int64(-1)},
		{"${7 mod -3}", int64(1)},
		{"${7.5 % 2}", 1.5},
		{"${null + null}", int64(0)},
		{"${null + 1}", int64(1)},
		{"${nul * 3}", int64(0)},
		{"${-'2'}", int64(-2)},
		{"${-'2.5'}", -2.5},
		{"${-null}", int64(0)},
		{"${9223372036854775807 + 1}", int64(math.MinInt64)},
		{"${KB * 2}", nil}, // KB is shadowed by a string variable: error below
		{"${MB / KB}", nil},
		// comparisons
		{"${'01' == 1}", true},
		{"${'1' == 1.0}", true},
		{"${s10 == 10}", true},
		{"${s10 eq '10'}", true},
		{"${'a' < 'b'}", true},
		{"${'b' gt 'a'}", true},
		{"${2 <= 2}", true},
		{"${2.5 > 2}", true},
		{"${'10' > 9}", true},
		{"${'10' > '9'}", false},
		{"${null == null}", true},
		{"${null == ''}", false},
		{"${nul != 0}", true},
		{"${null < 1}", false},
		{"${null <= null}", true},
		{"${true == 'TRUE'}", true},
		{"${false < true}", true},
		{"${m == m}", true},
		// logic
		{"${!true}", false},
		{"${not false}", true},
		{"${true && false}", false},
		{"${false || 'true'}", true},
		{"${false and undefinedVar}", false},
		{"${true or undefinedVar}", true},
		{"${TRUE ? 1 : 2}", int64(1)},
		{"${'x' ? 1 : 2}", int64(2)},
		{"${nul ? 1 : 2}", int64(2)},
		// empty
		{"${empty nul}", true},
		{"${empty ''}", true},
		{"${empty m.missing}", true},
		{"${empty str}", false},
		{"${empty em}", true},
		{"${empty m}", false},
		{"${empty 0}", false},
		{"${not empty list}", true},
		// property access
		{"${m.b}", "B"},
		{"${m['b']}", "B"},
		{"${m.missing}", nil},
		{"${m.inner.k}", "v"},
		{"${m[1]}", nil},
		{"${nul.x}", nil},
		{"${list[1]}", "y"},
		{"${list['0']}", "x"},
		{"${list[5]}", nil},
		{"${hadoop:counters('mr')[RECORDS][MAP_IN]}", int64(33)},
		{"${hadoop:counters('mr')['org.apache.hadoop.mapred.Task$Counter']['MAP_INPUT_RECORDS']}", int64(33)},
		{"${hadoop:counters('mr')['nope']['x']}", nil},
		{"${t:sparse().A + t:sparse().B}", int64(1)},
		// argument coercion
		{"${typeOf(null)}", "<nil>"},
		{"${typeOf(1)}", "int64"},
		{"${t:long('12')}", "int64 12"},
		{"${t:long(null)}", "int64 0"},
		{"${t:long(2.9)}", "int64 2"},
		{"${t:double('2')}", "float64 2"},
		{"${t:bool('TRUE')}", "bool true"},
		{"${t:bool(null)}", "bool false"},
		{"${concat(null, 1)}", "1"},
		{"${concat('n=', 1 + 2)}", "n=3"},
		{"${concat(2.0, true)}", "2.0true"},
		// templates
		{"a ${str} b ${i}", "a abc b 7"},
		{"${f}/${10/4}", "2.5/2.5"},
		{"${nul}-", "-"},
		{`\${x}${str}`, "${x}abc"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := ev.Eval(tt.expr)
			if tt.expr == "${KB * 2}" {
				if err == nil {
					t.Fatalf("want an error, got %v", got)
				}
				return
			}
			if tt.expr == "${MB / KB}" {
				if err == nil {
					t.Fatalf("want an error, got %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	ev := testEvaluator()
	tests := []struct {
		expr   string
		column int
		substr string
	}{
		{"${c}", 3, "variable [c] cannot be resolved"},
		{"ab ${i + undefinedVar}", 10, "variable [undefinedVar] cannot be resolved"},
		{"${unknownFn('a')}", 3, "variable [unknownFn] cannot be resolved"},
		{"${str('a')}", 3, "function [str] not found"},
		{"${ns:fn('a')}", 3, "function [ns:fn] not found"},
		{"${concat('a')}", 3, "function [concat] takes 2 arguments, 1 given"},
		{"${'a' + 1}", 7, "cannot convert [a] of type [java.lang.String] to [java.lang.Long]"},
		{"${'1.5x' + 1}", 10, "cannot convert"},
		{"${true + 1}", 8, "cannot convert"},
		{"${-true}", 3, "cannot convert"},
		{"${5 % 0}", 5, "/ by zero"},
		{"${str.y}", 6, "Property [y] not found on type [java.lang.String]"},
		{"${i.y}", 4, "Property [y] not found on type [java.lang.Long]"},
		{"${1 ? 'a' : 'b'}", 3, "cannot convert [1] of type [java.lang.Long] to [java.lang.Boolean]"},
		{"${!1}", 3, "to [java.lang.Boolean]"},
		{"${1 && true}", 3, "to [java.lang.Boolean]"},
		{"${'a' == 1}", 7, "cannot convert"},
		{"${m < 1}", 5, "cannot convert"},
		{"${m < m}", 5, "cannot compare"},
		{"${t:long('x')}", 10, "argument 1 of t:long"},
		{"${t:bool(1)}", 10, "to [java.lang.Boolean]"},
		{"${t:fail()}", 3, "t:fail: boom"},
		{"${list['a']}", 8, "cannot convert"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := ev.Eval(tt.expr)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %#v, %v; want *Error", got, err)
			}
			if e.Code != "E1004" || e.Syntax || e.Expr != tt.expr {
				t.Errorf("error fields %+v", e)
			}
			if e.Column != tt.column {
				t.Errorf("column %d, want %d", e.Column, tt.column)
			}
			if !strings.Contains(e.Msg, tt.substr) {
				t.Errorf("message %q does not contain %q", e.Msg, tt.substr)
			}
			if !strings.HasPrefix(e.Error(), "E1004: Expression language evaluation error, ") {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

func TestFunctionErrorUnwraps(t *testing.T) {
	sentinel := errors.New("sentinel")
	r := NewRegistry()
	r.Define("x", "f", nil, func(*Call) (any, error) { return nil, sentinel })
	_, err := (&Evaluator{Funcs: r}).Eval("${x:f()}")
	if !errors.Is(err, sentinel) {
		t.Fatalf("%v does not wrap the function's error", err)
	}
}

func TestEvalStringAndBool(t *testing.T) {
	ev := testEvaluator()
	strs := []struct{ expr, want string }{
		{"${10 / 2}", "5.0"},
		{"${1e10}", "1.0E10"},
		{"${nul}", ""},
		{"${m.inner}", "{k=v}"},
		{"${list}", "[x, y]"},
		{"${KB}", "shadowed"},
		{"${true}", "true"},
		{"${timestamp()}", "2009-07-16T18:20Z"},
	}
	for _, tt := range strs {
		got, err := ev.EvalString(tt.expr)
		if err != nil || got != tt.want {
			t.Errorf("EvalString(%q) = %q, %v; want %q", tt.expr, got, err, tt.want)
		}
	}
	bools := []struct {
		expr string
		want bool
		err  bool
	}{
		{"${i > 5}", true, false},
		{"${TRUE}", true, false},
		{"${str}", false, false},
		{"${nul}", false, false},
		{"true", true, false},
		{"TRUE", true, false},
		{"${true} ", false, false},
		{"${i}", false, true},
		{"${c}", false, true},
	}
	for _, tt := range bools {
		got, err := ev.EvalBool(tt.expr)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("EvalBool(%q) = %v, %v; want %v (error %v)", tt.expr, got, err, tt.want, tt.err)
		}
	}
}

func TestConstants(t *testing.T) {
	ev := &Evaluator{Funcs: Basic()}
	for expr, want := range map[string]int64{
		"${KB}": 1024, "${MB}": 1 << 20, "${GB}": 1 << 30, "${TB}": 1 << 40, "${PB}": 1 << 50, "${2 * KB}": 2048,
	} {
		got, err := ev.Eval(expr)
		if err != nil || got != want {
			t.Errorf("%s = %#v, %v; want %d", expr, got, err, want)
		}
	}
}

func TestZeroEvaluator(t *testing.T) {
	var ev Evaluator
	if got, err := ev.EvalString("a${1+1}"); err != nil || got != "a2" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := ev.Eval("${concat('a','b')}"); err == nil {
		t.Error("want an error without functions")
	}
}

func TestRegistryClone(t *testing.T) {
	base := Basic()
	phase := base.Clone()
	phase.Define("wf", "id", nil, func(*Call) (any, error) { return "x", nil })
	phase.Const("KB", int64(1))
	if base.Has("wf", "id") || !phase.Has("wf", "id") || !phase.Has("", "concat") {
		t.Error("Clone shares definitions")
	}
	if v, _ := (&Evaluator{Funcs: base}).Eval("${KB}"); v != int64(1024) {
		t.Errorf("base KB = %v", v)
	}
	if got := strings.Join(Basic().Functions(), ","); !strings.Contains(got, "appendAll") || !strings.Contains(got, "urlEncode") {
		t.Errorf("Functions() = %s", got)
	}
}

func TestCallDirect(t *testing.T) {
	r := Basic()
	if _, err := r.CallDirect("", "nope"); err == nil {
		t.Error("unknown function: want an error")
	}
	if _, err := r.CallDirect("", "trim"); err == nil {
		t.Error("wrong arity: want an error")
	}
}

func TestCacheBounded(t *testing.T) {
	for i := 0; i < cacheLimit+100; i++ {
		if _, err := cachedParse(fmt.Sprintf("${%d}", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := parseCache.size.Load(); n > cacheLimit {
		t.Errorf("cache holds %d entries, limit %d", n, cacheLimit)
	}
	// parse errors are cached too and keep failing
	for i := 0; i < 2; i++ {
		if _, err := cachedParse("${"); err == nil {
			t.Fatal("want an error")
		}
	}
}

func TestConcurrentEval(t *testing.T) {
	ev := testEvaluator()
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func(g int) {
			var err error
			for i := 0; i < 500 && err == nil; i++ {
				var got string
				got, err = ev.EvalString(fmt.Sprintf("${%d + i}", i%50))
				if err == nil && got != fmt.Sprint(i%50+7) {
					err = fmt.Errorf("got %s", got)
				}
			}
			done <- err
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestCallAccessors(t *testing.T) {
	r := NewRegistry()
	r.Define("x", "var", []Type{String}, func(c *Call) (any, error) {
		v, ok := c.Lookup(c.Args[0].(string))
		if !ok {
			return "undefined", nil
		}
		return v, nil
	})
	r.Define("x", "nested", nil, func(c *Call) (any, error) {
		return c.Evaluator().EvalString("[${v}]")
	})
	r.Define("x", "name", nil, func(c *Call) (any, error) { return c.Prefix + ":" + c.Name, nil })
	r.Const("K", "k")
	ev := &Evaluator{Funcs: r, Vars: MapVars{"v": "V"}}
	for expr, want := range map[string]string{
		"${x:var('v')}":  "V",
		"${x:var('K')}":  "k",
		"${x:var('no')}": "undefined",
		"${x:nested()}":  "[V]",
		"${x:name()}":    "x:name",
	} {
		if got, err := ev.EvalString(expr); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", expr, got, err, want)
		}
	}
	direct := &Call{}
	if _, ok := direct.Lookup("v"); ok || direct.Evaluator() != nil || direct.Now().IsZero() {
		t.Error("a direct call has no evaluator but still a clock")
	}
}
