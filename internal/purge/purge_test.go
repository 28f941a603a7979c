package purge

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/engine/enginetest"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/store/sqlite"
)

func TestConfigFrom(t *testing.T) {
	tests := []struct {
		name string
		keys map[string]string
		want Config
		err  string
	}{
		{"defaults", nil, DefaultConfig, ""},
		{"Oozie's keys", map[string]string{KeyOlderThan: "10", KeyCoordOlderThan: "3", KeyBundleOlderThan: "4",
			KeyLimit: "50", KeyInterval: "60", KeyOldCoordAction: "true"},
			Config{WorkflowDays: 10, CoordDays: 3, BundleDays: 4, Limit: 50, Interval: time.Minute, OldCoordActions: true}, ""},
		{"no periodic purge", map[string]string{KeyInterval: "-1"},
			Config{WorkflowDays: 30, CoordDays: 7, BundleDays: 7, Limit: 100, Interval: -time.Second}, ""},
		{"zero days", map[string]string{KeyOlderThan: "0"},
			Config{WorkflowDays: 0, CoordDays: 7, BundleDays: 7, Limit: 100, Interval: time.Hour}, ""},
		{"bad days", map[string]string{KeyOlderThan: "thirty"}, Config{}, KeyOlderThan},
		{"negative days", map[string]string{KeyCoordOlderThan: "-1"}, Config{}, KeyCoordOlderThan},
		{"zero limit", map[string]string{KeyLimit: "0"}, Config{}, KeyLimit},
		{"bad interval", map[string]string{KeyInterval: "1h"}, Config{}, KeyInterval},
		{"bad flag", map[string]string{KeyOldCoordAction: "yes"}, Config{}, KeyOldCoordAction},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFrom(func(k string) string { return tc.keys[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	base := DefaultConfig
	tests := []struct {
		name   string
		params map[string][]string
		want   Config
		bad    bool
	}{
		{"none", nil, base, false},
		{"all (the CLI's names)", map[string][]string{"wf": {"1"}, "coord": {"2"}, "bundle": {"3"}, "limit": {"10"}, "oldcoordaction": {"true"}},
			Config{WorkflowDays: 1, CoordDays: 2, BundleDays: 3, Limit: 10, Interval: time.Hour, OldCoordActions: true}, false},
		{"the documentation's spelling", map[string][]string{"oldCoordAction": {"TRUE"}, "coord": {"0"}},
			Config{WorkflowDays: 30, CoordDays: 0, BundleDays: 7, Limit: 100, Interval: time.Hour, OldCoordActions: true}, false},
		{"blank keeps the default", map[string][]string{"wf": {""}, "user.name": {"joe"}}, base, false},
		{"bad number", map[string][]string{"wf": {"x"}}, base, true},
		{"zero limit", map[string][]string{"limit": {"0"}}, base, true},
		{"bad flag", map[string][]string{"oldcoordaction": {"maybe"}}, base, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequest(base, tc.params)
			if (err != nil) != tc.bad || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v (error: %v)", got, err, tc.want, tc.bad)
			}
		})
	}
}

// TestPeriodic: the service purges every interval on its clock, logs one
// line per round with what it deleted, and stops on Close.
func TestPeriodic(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gozie.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := enginetest.NewFakeClock(now)
	put := func(id string, end time.Time) {
		t.Helper()
		err := s.Update(ctx, func(tx store.Tx) error {
			return tx.PutJob(ctx, &store.Job{ID: id, Status: store.JobSucceeded, EndTime: end, LastModTime: end})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var lines []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	put("a-W", now.Add(-31*24*time.Hour))
	put("b-W", now.Add(-29*24*time.Hour))
	svc := New(s.(store.Purger), DefaultConfig, Options{Clock: clock, Logf: logf, FirstDelay: 10 * time.Second})
	svc.Start()
	defer svc.Close()
	has := func(id string) bool {
		var err error
		_ = s.View(ctx, func(tx store.Tx) error { _, err = tx.Job(ctx, id); return nil })
		return err == nil
	}
	clock.Advance(10 * time.Second)
	if has("a-W") || !has("b-W") {
		t.Fatalf("after the first round: a-W there %v (want gone), b-W there %v (want kept)", has("a-W"), has("b-W"))
	}
	// A day later b-W is past 30 days too; rounds run every hour.
	clock.Advance(24 * time.Hour)
	if has("b-W") {
		t.Fatalf("b-W still there a day later")
	}
	mu.Lock()
	first := lines[0]
	n := len(lines)
	mu.Unlock()
	if !strings.Contains(first, "deleted 1 workflows") || !strings.Contains(first, "bytes freed") {
		t.Errorf("first round's line %q: want the count and the bytes freed", first)
	}
	// FakeClock fires one due timer per Advance: the first round, then the
	// round an hour later, which saw b-W past the cut-off.
	if n != 2 {
		t.Errorf("%d rounds logged, want 2: %q", n, lines)
	}
	svc.Close()
	put("c-W", now.Add(-31*24*time.Hour))
	clock.Advance(2 * time.Hour)
	if !has("c-W") {
		t.Errorf("a round ran after Close")
	}
}
