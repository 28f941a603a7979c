package hcat_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/hcat"
	"github.com/gozie/gozie/internal/fsys/hcat/hcattest"
	"github.com/gozie/gozie/internal/launch"
	"github.com/gozie/gozie/internal/xmltree"
)

// namespace returns a namespace with the backend's settings c.
func namespace(t *testing.T, c fsys.MapConfig) *fsys.Namespace {
	t.Helper()
	ns, err := fsys.NewNamespace(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// clicks starts a metastore with mydb.clicks (datestamp, region) holding
// two partitions.
func clicks(t *testing.T) *hcattest.Server {
	s := hcattest.Start(t)
	s.CreateTable("mydb", "clicks", "datestamp", "region")
	s.AddPartition("mydb", "clicks", "2009010101", "us")
	s.AddPartition("mydb", "clicks", "2009010102", "us")
	return s
}

// The backend against a Thrift server speaking the metastore's protocol
// over TCP: what exists, what does not, what is refused.
func TestStat(t *testing.T) {
	s := clicks(t)
	ns := namespace(t, nil)
	ctx := context.Background()
	base := "hcat://" + s.Addr + "/mydb/clicks/"
	tests := []struct {
		uri    string
		exists bool
		errIs  error // nil: no error
	}{
		{base + "datestamp=2009010101;region=us", true, nil},
		{base + "region=us;datestamp=2009010102", true, nil}, // key order does not matter to the metastore
		{base + "datestamp=2009010101", true, nil},           // a partial specification
		{base + "datestamp=2009010103;region=us", false, nil},
		{"hcat://" + s.Addr + "/mydb/nosuch/datestamp=1", false, nil}, // no table: missing
		{"hcat://" + s.Addr + "/otherdb/clicks/datestamp=1", false, nil},
		{base + "nokey=1", false, errors.New("not a partitioning key")},
		{"hcat://" + s.Addr + "/mydb/clicks", false, fs.ErrInvalid},
	}
	for _, tc := range tests {
		ok, err := ns.Exists(ctx, tc.uri)
		switch {
		case tc.errIs == nil && (err != nil || ok != tc.exists):
			t.Errorf("Exists(%s) = %v, %v; want %v", tc.uri, ok, err, tc.exists)
		case tc.errIs != nil && err == nil:
			t.Errorf("Exists(%s) = %v, no error; want %v", tc.uri, ok, tc.errIs)
		case tc.errIs != nil && !errors.Is(err, tc.errIs) && !strings.Contains(err.Error(), tc.errIs.Error()):
			t.Errorf("Exists(%s): %v; want %v", tc.uri, err, tc.errIs)
		case err != nil && errors.Is(err, fsys.ErrUnavailable):
			t.Errorf("Exists(%s): %v is not a refusal", tc.uri, err)
		}
	}
	fi, err := ns.Stat(ctx, base+"datestamp=2009010101;region=us")
	if err != nil || !fi.Dir || fi.Modified.IsZero() {
		t.Errorf("Stat = %+v, %v", fi, err)
	}
}

func TestDelete(t *testing.T) {
	s := clicks(t)
	s.AddPartition("mydb", "clicks", "2009010101", "eu")
	ns := namespace(t, nil)
	ctx := context.Background()
	base := "hcat://" + s.Addr + "/mydb/clicks/"
	if err := ns.Delete(ctx, base+"datestamp=2009010102;region=us"); err != nil {
		t.Fatal(err)
	}
	if s.HasPartition("mydb", "clicks", "2009010102", "us") {
		t.Error("partition not dropped")
	}
	// A partial specification drops every partition it matches.
	if err := ns.Delete(ctx, base+"datestamp=2009010101"); err != nil {
		t.Fatal(err)
	}
	if s.HasPartition("mydb", "clicks", "2009010101", "us") || s.HasPartition("mydb", "clicks", "2009010101", "eu") {
		t.Error("partitions of datestamp=2009010101 not dropped")
	}
	// Nothing to drop is not an error, so that replays stay harmless.
	for _, u := range []string{base + "datestamp=2009010101", "hcat://" + s.Addr + "/mydb/nosuch/a=1"} {
		if err := ns.Delete(ctx, u); err != nil {
			t.Errorf("Delete(%s) again: %v", u, err)
		}
	}
	if n := s.Calls("drop_partition"); n != 3 {
		t.Errorf("%d drop_partition calls, want 3", n)
	}
}

func TestRefused(t *testing.T) {
	s := clicks(t)
	ns := namespace(t, nil)
	ctx := context.Background()
	u := "hcat://" + s.Addr + "/mydb/clicks/datestamp=2009010101"
	ops := map[string]error{
		"mkdir":  ns.MkdirAll(ctx, u),
		"create": ns.WriteFile(ctx, u, []byte("x")),
	}
	_, ops["list"] = ns.List(ctx, u)
	_, ops["open"] = ns.Open(ctx, u)
	for op, err := range ops {
		if !errors.Is(err, fsys.ErrNotSupported) || !strings.Contains(err.Error(), "can only be checked and deleted") {
			t.Errorf("%s: %v, want ErrNotSupported", op, err)
		}
	}
	if s.Calls("get_partitions_by_filter") != 0 {
		t.Error("a refused operation asked the metastore")
	}
}

// Several metastores: a dead one is skipped, the one answering is asked
// first afterwards; with none answering the store is unavailable.
func TestFailover(t *testing.T) {
	dead := hcattest.Start(t)
	dead.Stop()
	s := clicks(t)
	ns := namespace(t, fsys.MapConfig{hcat.KeyConnectTimeout: "2s"})
	ctx := context.Background()
	u := "hcat://" + dead.Addr + "," + s.Addr + "/mydb/clicks/datestamp=2009010101;region=us"
	for i := 0; i < 3; i++ {
		ok, err := ns.Exists(ctx, u)
		if err != nil || !ok {
			t.Fatalf("call %d through failover: %v, %v", i, ok, err)
		}
	}
	r, err := ns.Resolve(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	// One failed dial to the dead metastore, one connection to the live
	// one, reused.
	if n := r.FS.(*hcat.Store).Dials(); n != 2 {
		t.Errorf("%d dials, want 2", n)
	}
	s.Stop()
	_, err = ns.Exists(ctx, u)
	if !errors.Is(err, fsys.ErrUnavailable) {
		t.Errorf("no metastore: %v, want ErrUnavailable", err)
	}
}

// A metastore that does not answer in time makes the store unavailable
// within the socket timeout, not a hang; so does a cancelled context.
func TestTimeout(t *testing.T) {
	s := clicks(t)
	s.SetDelay(time.Second)
	ns := namespace(t, fsys.MapConfig{hcat.KeySocketTimeout: "200ms"})
	u := "hcat://" + s.Addr + "/mydb/clicks/datestamp=2009010101"
	start := time.Now()
	_, err := ns.Exists(context.Background(), u)
	if !errors.Is(err, fsys.ErrUnavailable) {
		t.Fatalf("slow metastore: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("gave up after %s", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	ns2 := namespace(t, nil)
	if _, err := ns2.Exists(ctx, u); !errors.Is(err, fsys.ErrUnavailable) {
		t.Errorf("cancelled: %v, want ErrUnavailable", err)
	}
}

// The pool bounds the connections of one authority.
func TestPoolBound(t *testing.T) {
	s := clicks(t)
	ns := namespace(t, fsys.MapConfig{hcat.KeyMaxConns: "2"})
	ctx := context.Background()
	u := "hcat://" + s.Addr + "/mydb/clicks/datestamp=2009010101"
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, err := ns.Exists(ctx, u); err != nil || !ok {
				errs <- fmt.Errorf("%v, %v", ok, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r, _ := ns.Resolve(ctx, u)
	if n := r.FS.(*hcat.Store).Dials(); n > 2 {
		t.Errorf("%d connections for a bound of 2", n)
	}
	if s.Calls("get_partitions_by_filter") != 40 {
		t.Errorf("%d calls, want 40", s.Calls("get_partitions_by_filter"))
	}
	if _, err := fsys.NewNamespace(fsys.MapConfig{hcat.KeyMaxConns: "0"}, nil); err != nil {
		t.Fatal(err)
	}
	bad := namespace(t, fsys.MapConfig{hcat.KeyMaxConns: "0"})
	if _, err := bad.Exists(ctx, u); err == nil || !strings.Contains(err.Error(), hcat.KeyMaxConns) {
		t.Errorf("max.connections 0: %v", err)
	}
}

// The coordinator's prober asks the metastore once per partition within
// its bounds, and keeps the answers for the cycle.
func TestProber(t *testing.T) {
	s := clicks(t)
	ns := namespace(t, nil)
	p := fsys.NewProber(ns, fsys.ProberOptions{Parallel: 2})
	base := "hcat://" + s.Addr + "/mydb/clicks/"
	uris := []string{base + "datestamp=2009010101;region=us", base + "datestamp=2009010102;region=us", base + "datestamp=2009010103;region=us"}
	ctx := context.Background()
	c := p.Prefetch(ctx, uris, fsys.CycleOptions{})
	defer c.Done()
	for i, u := range uris {
		ok, err := c.Exists(ctx, u)
		if err != nil || ok != (i < 2) {
			t.Errorf("%s: %v, %v", u, ok, err)
		}
	}
	if n := s.Calls("get_partitions_by_filter"); n != 3 {
		t.Errorf("%d metastore calls, want 3 (one per partition, answers kept)", n)
	}
	if got := p.Counts(); got.Stats != 3 || got.Walks != 0 {
		t.Errorf("prober counts %+v", got)
	}
}

// Against a real Hive metastore, when GOZIE_TEST_HIVE_METASTORE=host:port
// names one: a table that does not exist is a missing partition.
func TestRealMetastore(t *testing.T) {
	addr := os.Getenv("GOZIE_TEST_HIVE_METASTORE")
	if addr == "" {
		t.Skip("GOZIE_TEST_HIVE_METASTORE (host:port of a Hive metastore without SASL) is not set: no real metastore to ask")
	}
	ns := namespace(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ok, err := ns.Exists(ctx, "hcat://"+addr+"/default/gozie_no_such_table_29/dt=1")
	if err != nil || ok {
		t.Fatalf("missing table: %v, %v", ok, err)
	}
	if err := ns.Delete(ctx, "hcat://"+addr+"/default/gozie_no_such_table_29/dt=1"); err != nil {
		t.Fatalf("delete of a missing partition: %v", err)
	}
}

// hcat:exists and fs:exists of a workflow ask the metastore through the
// process's namespace.
func TestExistsEL(t *testing.T) {
	s := clicks(t)
	defer fsys.SetDefault(fsys.SetDefault(namespace(t, nil)))
	r := el.Basic()
	fsys.RegisterELFunctions(r)
	ev := &el.Evaluator{Funcs: r}
	base := "hcat://" + s.Addr + "/mydb/clicks/"
	tests := []struct{ expr, want string }{
		{"${hcat:exists('" + base + "datestamp=2009010101;region=us')}", "true"},
		{"${hcat:exists('" + base + "datestamp=2009010109;region=us')}", "false"},
		{"${fs:exists('" + base + "datestamp=2009010102')}", "true"},
	}
	for _, tc := range tests {
		got, err := ev.EvalString(tc.expr)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %s", tc.expr, got, err, tc.want)
		}
	}
	// A metastore that does not answer is an error, not false.
	s.Stop()
	if got, err := ev.EvalString("${hcat:exists('" + base + "datestamp=2009010101')}"); err == nil {
		t.Errorf("no metastore: %q, want an error", got)
	}
}

// <prepare><delete path="hcat://..."/> of an action drops the partition
// (spec: coord 6.8, the workflow of HCatPigExampleOne).
func TestPrepareDelete(t *testing.T) {
	s := clicks(t)
	defer fsys.SetDefault(fsys.SetDefault(namespace(t, nil)))
	body, err := xmltree.Parse([]byte(`<pig><name-node>hdfs://nn:8020</name-node><prepare>
 <delete path="hcat://` + s.Addr + `/mydb/clicks/datestamp=2009010101;region=us"/>
 <delete path="hcat://` + s.Addr + `/mydb/clicks/datestamp=2009010199;region=us"/>
</prepare></pig>`))
	if err != nil {
		t.Fatal(err)
	}
	if err := launch.RunPrepare(context.Background(), body); err != nil {
		t.Fatal(err)
	}
	if s.HasPartition("mydb", "clicks", "2009010101", "us") || !s.HasPartition("mydb", "clicks", "2009010102", "us") {
		t.Error("prepare did not drop exactly the partition named")
	}
	// A mkdir of a partition is refused: partitions are the jobs' to add.
	body, _ = xmltree.Parse([]byte(`<pig><prepare><mkdir path="hcat://` + s.Addr + `/mydb/clicks/datestamp=1;region=us"/></prepare></pig>`))
	if err := launch.RunPrepare(context.Background(), body); err == nil {
		t.Error("prepare mkdir of a partition succeeded")
	}
}
