package el

import (
	"testing"
	"time"
)

func benchEvaluator() *Evaluator {
	r := Basic()
	r.Define("wf", "id", nil, func(c *Call) (any, error) { return "0000001-oozie-W", nil })
	return &Evaluator{
		Funcs: r,
		Vars:  MapVars{"a": "value", "nameNode": "hdfs://nn:8020", "n": int64(5)},
		Now:   func() time.Time { return time.Unix(0, 0) },
	}
}

func benchEval(b *testing.B, text string) {
	ev := benchEvaluator()
	if _, err := ev.Eval(text); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ev.Eval(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalCachedVariable(b *testing.B) { benchEval(b, "${a}") }

func BenchmarkEvalCachedFunction(b *testing.B) { benchEval(b, "${wf:id()}") }

func BenchmarkEvalCachedTextWithVariable(b *testing.B) { benchEval(b, "${nameNode}/user/data") }

func BenchmarkEvalCachedLiteral(b *testing.B) { benchEval(b, "no expressions here") }

func BenchmarkEvalCachedArithmetic(b *testing.B) {
	benchEval(b, "${n * KB + 1 > 100 ? 'big' : 'small'}")
}

func BenchmarkEvalCachedBasicFunction(b *testing.B) {
	benchEval(b, "${concat(a, '-x')}")
}

func BenchmarkEvalCachedParallel(b *testing.B) {
	ev := benchEvaluator()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := ev.Eval("${wf:id()}"); err != nil {
				b.Error(err)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	const text = "${wf:conf('a') == 'x' && (n + 2 * KB) gt 10 ? concat(nameNode, '/out') : hadoop:counters('mr')['RECORDS']['MAP_IN']}"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSimple(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("${nameNode}/user/${wf:user()}/out"); err != nil {
			b.Fatal(err)
		}
	}
}
