package graph

import (
	"fmt"
	"strings"
)

// The workflow builders below are copies of internal/workflow's test
// helpers, which a test of another package cannot reach.

// wfXML wraps node definitions into a workflow-app of the given version.
func wfXML(version, body string) string {
	return `<workflow-app xmlns="uri:oozie:workflow:` + version + `" name="t">` + "\n" + body + "\n</workflow-app>"
}

// fsAction is a minimal valid action for any version.
func fsAction(name, ok, errTo string) string {
	return `<action name="` + name + `"><fs><mkdir path="/x"/></fs><ok to="` + ok + `"/><error to="` + errTo + `"/></action>`
}

const killNode = `<kill name="k"><message>killed</message></kill>`

// largeWorkflow is a long chain of decision diamonds and forks whose
// branches also meet on error paths (1,800 nodes).
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
