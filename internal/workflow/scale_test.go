package workflow

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// largeWorkflow is a long chain of decision diamonds and forks whose
// branches also meet on error paths: a graph on which a naive depth-first
// walk takes exponential time.
func largeWorkflow() []byte {
	var b strings.Builder
	b.WriteString(`<start to="d0"/>`)
	const n = 300
	for i := 0; i < n; i++ {
		next := fmt.Sprintf("f%d", i)
		fmt.Fprintf(&b, `<decision name="d%d"><switch><case to="a%d">${x}</case><default to="b%d"/></switch></decision>`, i, i, i)
		b.WriteString(fsAction(fmt.Sprintf("a%d", i), next, next))
		b.WriteString(fsAction(fmt.Sprintf("b%d", i), next, next))
		fmt.Fprintf(&b, `<fork name="f%d"><path start="p%d"/><path start="q%d"/></fork>`, i, i, i)
		b.WriteString(fsAction(fmt.Sprintf("p%d", i), fmt.Sprintf("j%d", i), fmt.Sprintf("q%d", i)))
		b.WriteString(fsAction(fmt.Sprintf("q%d", i), fmt.Sprintf("j%d", i), "k"))
		last := fmt.Sprintf("d%d", i+1)
		if i == n-1 {
			last = "end"
		}
		fmt.Fprintf(&b, `<join name="j%d" to="%s"/>`, i, last)
	}
	b.WriteString(killNode + `<end name="end"/>`)
	return []byte(wfXML("0.5", b.String()))
}

// TestLargeWorkflow checks that the 1,800-node graph validates; an
// exponential walk would not finish within the test timeout. Its speed is
// measured by BenchmarkParseLarge.
func TestLargeWorkflow(t *testing.T) {
	opts := DefaultOptions()
	opts.MaxDefinitionLength = -1
	app, err := Parse(largeWorkflow(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(app.Nodes); got < 1800 {
		t.Errorf("%d nodes, want at least 1800", got)
	}
}

func BenchmarkParseLarge(b *testing.B) {
	data := largeWorkflow()
	opts := DefaultOptions()
	opts.MaxDefinitionLength = -1
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseExample parses the fork/join example application, a
// definition of typical size.
func BenchmarkParseExample(b *testing.B) {
	data, err := os.ReadFile("../../examples/apps/fork-join/workflow.xml")
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, opts); err != nil {
			b.Fatal(err)
		}
	}
}
