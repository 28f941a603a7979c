package coord

import (
	"testing"
	"time"

	"github.com/gozie/gozie/internal/conf"
)

// FuzzFormatJava: any SimpleDateFormat pattern formats or fails cleanly.
func FuzzFormatJava(f *testing.F) {
	for _, p := range []string{"yyyyMMdd_HHmmss", "'quoted''s' EEEE MMMM", "x", "'", "yy-Y-w-W-D-F-u-a-k-K-h-S-z-zzzz-Z-X-XX-XXX-XXXX"} {
		f.Add(p)
	}
	t0 := time.Date(2009, 9, 8, 23, 59, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, p string) {
		_, _ = FormatJava(t0, p)
	})
}

// FuzzParseApp: any bytes parse, or fail with an Oozie-coded error; what
// parses also submits (with every variable defined as "1") or fails cleanly.
func FuzzParseApp(f *testing.F) {
	f.Add([]byte(app("0.2", "", "<datasets>"+ds("a", "/a/${YEAR}")+`</datasets><input-events><data-in name="in" dataset="a"><start-instance>${coord:current(-1)}</start-instance><end-instance>${coord:current(0)}</end-instance></data-in></input-events>`)))
	f.Add([]byte(app("0.4", `name="c" frequency="0 * * * *" start="2009-01-01T00:00Z" end="2009-01-01T05:00Z" timezone="UTC"`, "<parameters><property><name>p</name><value>1</value></property></parameters><controls><timeout>${coord:hours(1)}</timeout></controls>")))
	f.Add([]byte(`<coordinator-app xmlns="uri:oozie:coordinator:0.1" xmlns:sla="uri:oozie:sla:0.1" name="c" frequency="60" start="2009-01-01T00:00Z" end="2009-01-02T00:00Z" timezone="UTC"><action><workflow><app-path>/w</app-path></workflow><sla:info><sla:nominal-time>${coord:nominalTime()}</sla:nominal-time></sla:info></action></coordinator-app>`))
	f.Add([]byte(logicXML(logicRange, `<or name="x" min="1" wait="2"><and><data-in dataset="A"/><combine><data-in dataset="B"/><data-in dataset="C"/></combine></and><data-in dataset="D"/></or>`)))
	f.Add([]byte("<coordinator-app"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseApp(data)
		if err != nil {
			if ErrorCode(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if a.AppPath == "" && a.Name == "" && a.Frequency == "" {
			return
		}
		props := conf.New()
		props.SetResolver(func(string) (string, bool) { return "1", true })
		props.Set(PropUser, "u")
		props.Set(PropAppPath, "/app")
		app, _, err := Submit(props, SubmitOptions{ReadFile: memFiles(map[string]string{"/app/coordinator.xml": string(data)})})
		if err != nil {
			if ErrorCode(err) == "" {
				t.Fatalf("submit error without a code: %v", err)
			}
			return
		}
		if _, err := app.Materialize(PlanState{}, PlanOptions{Now: app.Start, Window: time.Hour, BatchSize: 10}, props); err != nil && ErrorCode(err) == "" {
			t.Fatalf("materialize error without a code: %v", err)
		}
	})
}
