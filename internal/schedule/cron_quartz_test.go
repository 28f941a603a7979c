package schedule

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// quartzLine is one line of cron-quartz*.txt: an expression and the fire
// times Quartz 2.3.2 produced strictly after 2013-01-01T00:00Z.
type quartzLine struct {
	line int
	expr string
	want []string
	// never is set when Quartz found no fire time (the expression is invalid
	// for Oozie).
	never bool
}

func readQuartz(t *testing.T, name string) []quartzLine {
	t.Helper()
	var out []quartzLine
	sc := bufio.NewScanner(bytes.NewReader(readVector(t, name)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		q := quartzLine{line: n, expr: strings.TrimSpace(parts[0])}
		times := strings.TrimSpace(parts[len(parts)-1])
		if strings.HasPrefix(times, "NULL") || times == "" {
			q.never = true
		} else {
			q.want = strings.Fields(times)
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return out
}

func TestCronQuartzConformance(t *testing.T) {
	after := time.Date(2013, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, file := range []string{"cron-quartz.txt", "cron-quartz-examples.txt"} {
		for _, q := range readQuartz(t, file) {
			t.Run(fmt.Sprintf("%s/%d", file, q.line), func(t *testing.T) {
				c, err := ParseCron(q.expr)
				if q.never {
					if err == nil {
						t.Fatalf("%q: accepted, Quartz never fires it", q.expr)
					}
					return
				}
				if err != nil {
					t.Fatalf("%q: %v", q.expr, err)
				}
				cur := after
				for i, w := range q.want {
					next, ok := c.Next(cur, time.UTC)
					if !ok {
						t.Fatalf("%q: fire %d: none, want %s", q.expr, i, w)
					}
					if got := FormatTime(next); got != w {
						t.Fatalf("%q: fire %d after %s = %s, want %s", q.expr, i, FormatTime(cur), got, w)
					}
					cur = next
				}
			})
		}
	}
}
