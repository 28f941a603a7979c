// Package hcattest runs, inside a test, a Hive metastore stand-in: a real
// Thrift server (binary protocol over TCP) of the generated
// ThriftHiveMetastore service, answering get_partitions_by_filter and
// drop_partition from tables held in memory. The hcat backend's tests and
// the coordinator tests that wait for a partition use it.
package hcattest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/gozie/gozie/internal/fsys/hcat/metastore"
)

// Server is a running metastore stand-in.
type Server struct {
	// Addr is host:port of the listener.
	Addr string

	ln    net.Listener
	mu    sync.Mutex
	conns map[net.Conn]bool
	tabs  map[string]*table // "db.table"
	calls map[string]int
	// Delay, when set, holds every call that long (timeout tests).
	delay time.Duration
	wg    sync.WaitGroup
}

type table struct {
	keys  []string
	parts [][]string
}

// Start starts a server on 127.0.0.1 and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}, tabs: map[string]*table{}, calls: map[string]int{}}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) accept() {
	defer s.wg.Done()
	proc := metastore.NewThriftHiveMetastoreProcessor(handler{s})
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[nc] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, nc)
				s.mu.Unlock()
				nc.Close()
			}()
			trans := thrift.NewTBufferedTransport(thrift.NewTSocketFromConnConf(nc, nil), 8192)
			proto := thrift.NewTBinaryProtocolConf(trans, nil)
			for {
				if ok, err := proc.Process(context.Background(), proto, proto); err != nil && !ok {
					return
				}
			}
		}()
	}
}

// Stop closes the listener and every connection, as a metastore that
// goes away does.
func (s *Server) Stop() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// SetDelay holds every later call d before answering.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// CreateTable creates db.name partitioned by keys, in that order.
func (s *Server) CreateTable(db, name string, keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tabs[db+"."+name] = &table{keys: keys}
}

// AddPartition adds the partition of db.name with values, in the table's
// key order.
func (s *Server) AddPartition(db, name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tabs[db+"."+name]
	if t == nil {
		panic("hcattest: no table " + db + "." + name)
	}
	t.parts = append(t.parts, values)
}

// HasPartition reports whether db.name has the partition with values.
func (s *Server) HasPartition(db, name string, values ...string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tabs[db+"."+name]
	if t == nil {
		return false
	}
	return slices.ContainsFunc(t.parts, func(p []string) bool { return slices.Equal(p, values) })
}

// Calls returns how many times method was called.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// handler implements the generated service.
type handler struct{ s *Server }

func (h handler) begin(method string) {
	h.s.mu.Lock()
	h.s.calls[method]++
	d := h.s.delay
	h.s.mu.Unlock()
	if d > 0 {
		time.Sleep(d) // the stand-in's slowness, not a test's synchronisation
	}
}

func noSuch(db, name string) error {
	e := metastore.NewNoSuchObjectException()
	e.Message = db + "." + name + " table not found"
	return e
}

func (h handler) GetPartitionsByFilter(_ context.Context, db, name, filter string, max int16) ([]*metastore.Partition, error) {
	h.begin("get_partitions_by_filter")
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	t := h.s.tabs[db+"."+name]
	if t == nil {
		return nil, noSuch(db, name)
	}
	want, err := parseFilter(filter, t.keys)
	if err != nil {
		e := metastore.NewMetaException()
		e.Message = err.Error()
		return nil, e
	}
	var out []*metastore.Partition
	for _, p := range t.parts {
		if max >= 0 && len(out) >= int(max) {
			break
		}
		if matches(p, want) {
			out = append(out, &metastore.Partition{Values: slices.Clone(p), DbName: db, TableName: name, CreateTime: 1700000000})
		}
	}
	return out, nil
}

func (h handler) DropPartition(_ context.Context, db, name string, vals []string, _ bool) (bool, error) {
	h.begin("drop_partition")
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	t := h.s.tabs[db+"."+name]
	if t == nil {
		return false, noSuch(db, name)
	}
	i := slices.IndexFunc(t.parts, func(p []string) bool { return slices.Equal(p, vals) })
	if i < 0 {
		e := metastore.NewNoSuchObjectException()
		e.Message = fmt.Sprintf("partition %v not found", vals)
		return false, e
	}
	t.parts = slices.Delete(t.parts, i, i+1)
	return true, nil
}

// parseFilter reads the filters the backend sends, k = "v" and k2 = 'v2',
// into a value per key position ("" where any value matches).
func parseFilter(f string, keys []string) ([]*string, error) {
	want := make([]*string, len(keys))
	for _, term := range strings.Split(f, " and ") {
		k, v, ok := strings.Cut(term, " = ")
		if !ok || len(v) < 2 || (v[0] != '"' && v[0] != '\'') || v[len(v)-1] != v[0] {
			return nil, errors.New("Error parsing partition filter : " + f)
		}
		i := slices.Index(keys, k)
		if i < 0 {
			return nil, fmt.Errorf("%s is not a partitioning key for the table", k)
		}
		val := v[1 : len(v)-1]
		want[i] = &val
	}
	return want, nil
}

func matches(p []string, want []*string) bool {
	for i, w := range want {
		if w != nil && (i >= len(p) || p[i] != *w) {
			return false
		}
	}
	return true
}
