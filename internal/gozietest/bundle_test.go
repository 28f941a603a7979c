package gozietest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/client"
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/gozietest"
)

// TestBundleKickoff: a bundle submitted (not run: the start command
// starts a bundle at once, whatever its kick-off time) whose kick-off
// time is the next minute of the server's clock (ClockFrom puts it three
// seconds ahead) waits in PREP with no coordinator, and starts them when
// the clock reaches it.
func TestBundleKickoff(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: -short")
	}
	kickoff := time.Now().Truncate(time.Minute).Add(2 * time.Minute)
	clock := gozietest.ClockFrom(kickoff.Add(-3 * time.Second))
	srv := gozietest.NewServer(t, gozietest.Options{Clock: clock, DefaultUser: "joe"})
	dir := t.TempDir()
	at := kickoff.UTC().Format("2006-01-02T15:04Z")
	for name, body := range map[string]string{
		"bundle.xml": `<bundle-app name="kick" xmlns="uri:oozie:bundle:0.2"><controls><kick-off-time>` + at + `</kick-off-time></controls>
  <coordinator name="c"><app-path>` + dir + `</app-path></coordinator></bundle-app>`,
		"coordinator.xml": `<coordinator-app name="c" frequency="${coord:hours(1)}" start="2030-01-01T00:00Z" end="2030-01-01T01:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4"><action><workflow><app-path>` + dir + `</app-path></workflow></action></coordinator-app>`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(srv.URL, client.Options{User: "joe"})
	cf := conf.New()
	cf.Set("user.name", "joe")
	cf.Set("oozie.bundle.application.path", dir)
	id, _, err := c.Submit(ctx, cf, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := c.BundleInfo(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != "PREP" || len(b.BundleCoordJobs) != 0 || !b.KickoffTime.Equal(kickoff) {
		t.Fatalf("before its kick-off time: %s with %d coordinators, kick-off %v (server clock %v)", b.Status, len(b.BundleCoordJobs), b.KickoffTime, clock.Now())
	}
	for b.Status != "RUNNING" || len(b.BundleCoordJobs) != 1 {
		if ctx.Err() != nil {
			t.Fatalf("not started at its kick-off time: %s with %d coordinators", b.Status, len(b.BundleCoordJobs))
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not timing it
		if b, _, err = c.BundleInfo(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if now := clock.Now(); now.Before(kickoff) {
		t.Errorf("started at %v, before its kick-off time %v", now, kickoff)
	}
	if co := b.BundleCoordJobs[0]; co.CoordJobName != "c" || co.Status != "PREP" && co.Status != "RUNNING" {
		t.Errorf("its coordinator: %s %s", co.CoordJobName, co.Status)
	}
}
