package workflow

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLargeWorkflowIsFast guards against exponential walks: a long chain of
// decision diamonds and forks whose branches also meet on error paths.
func TestLargeWorkflowIsFast(t *testing.T) {
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
	opts := DefaultOptions()
	opts.MaxDefinitionLength = -1
	began := time.Now()
	if _, err := Parse([]byte(wfXML("0.5", b.String())), opts); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("parse took %v", d)
	}
}
