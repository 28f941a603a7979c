package coord

import (
	"strings"

	"github.com/gozie/gozie/internal/el"
)

// startOnly are the coord: functions that cannot run before an action
// starts: the data functions need the resolved inputs, latest/future the
// file system, actionId the id the engine assigns.
var startOnly = map[string]bool{
	"dataIn": true, "dataOut": true, "latest": true, "latestRange": true,
	"future": true, "futureRange": true, "actionId": true,
}

// deferred reports whether an EL segment calls a start-only function.
func deferred(seg *el.Segment) bool {
	found := false
	el.Inspect(seg.X, func(n el.Node) bool {
		if c, ok := n.(*el.CallExpr); ok && c.Prefix == "coord" && startOnly[c.Name] {
			found = true
		}
		return !found
	})
	return found
}

// hasEarlySegments reports whether text has a ${} segment that
// materialization can resolve (one without start-only functions).
func hasEarlySegments(text string) bool {
	if !el.HasExpr(text) {
		return false
	}
	tpl, err := el.Parse(text)
	if err != nil {
		return false
	}
	for _, n := range tpl.Nodes {
		if seg, ok := n.(*el.Segment); ok && !deferred(seg) {
			return true
		}
	}
	return false
}

// resolveEarly evaluates, segment by segment, what the materialization
// phase can (coord:nominalTime, coord:formatTime, job variables, ...) and
// keeps the other segments, and any segment that fails, as written for the
// start phase. It is what the stored action XML shows; the run
// configuration is always computed from the definition at start. A result
// that would pass max bytes is not built: false, with text as it is.
// (Segments are evaluated one by one, so el.MaxStringLen, which bounds a
// whole text's, does not bound the result.)
func resolveEarly(ctx *ELContext, text string, max int) (string, bool) {
	if !el.HasExpr(text) {
		return text, len(text) <= max
	}
	tpl, err := el.Parse(text)
	if err != nil {
		return text, len(text) <= max
	}
	var b strings.Builder
	for _, n := range tpl.Nodes {
		if b.Len() > max {
			return text, false
		}
		switch n := n.(type) {
		case *el.Text:
			b.WriteString(n.String())
		case *el.Segment:
			src := n.String()
			if deferred(n) {
				b.WriteString(src)
				continue
			}
			v, err := Eval(PhaseActionCreate, ctx, src)
			if err != nil {
				b.WriteString(src)
				continue
			}
			b.WriteString(strings.NewReplacer("${", `\${`, "#{", `\#{`).Replace(v))
		}
	}
	if b.Len() > max {
		return text, false
	}
	return b.String(), true
}
