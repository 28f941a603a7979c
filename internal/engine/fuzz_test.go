package engine

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/workflow"
)

// FuzzResolveAction resolves action bodies of arbitrary EL texts, repeated
// as arguments and attributes, against variables of several sizes and
// under arbitrary limits: never a panic, and a body that resolves is never
// over its limit, as XML or as the texts it holds. Failures are EL errors
// or errActionTooLarge.
func FuzzResolveAction(f *testing.F) {
	for _, s := range []string{"${big}", "${big}${big}", "${concat(big, big)}", "plain", "${replaceAll(big, '', big)}",
		`${"""""" }`, "${q}", "${", "#{big}", `\${big}`, "${wf:id()}", "${appendAll(big, big, '')}"} {
		f.Add(s, "${small}", uint16(300), uint32(4096))
	}
	f.Add("${big}", "", uint16(300), uint32(2<<20))
	ev := &el.Evaluator{Funcs: Functions(), Vars: el.MapVars{
		"small": "s", "big": strings.Repeat("b", 900_000), "q": strings.Repeat(`"&<`, 1000),
	}, Now: func() time.Time { return time.Unix(0, 0) }}
	f.Fuzz(func(t *testing.T, text, attr string, n uint16, limit uint32) {
		body := &workflow.Element{Name: xml.Name{Space: "uri:gozie:test:1.0", Local: "test"},
			Attrs: []xml.Attr{{Name: xml.Name{Local: "a"}, Value: attr}}}
		for range n % 512 {
			body.Children = append(body.Children, &workflow.Element{Name: xml.Name{Local: "argument"}, Text: text})
		}
		max := int(limit % (4 << 20))
		out, x, err := resolveAction(ev, body, max)
		if err != nil {
			var ee *el.Error
			if !errors.Is(err, errActionTooLarge) && !errors.As(err, &ee) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(x) > max {
			t.Fatalf("resolved XML of %d bytes over the limit %d", len(x), max)
		}
		size := len(out.Attr("a"))
		for _, c := range out.Children {
			size += len(c.Text)
		}
		if size > max {
			t.Fatalf("resolved texts of %d bytes over the limit %d", size, max)
		}
	})
}
