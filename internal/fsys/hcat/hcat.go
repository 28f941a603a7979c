// Package hcat is the file-system backend of HCatalog partitions, the
// scheme hcat:// (spec: coord 5.2, 6.8): a path is a partition URI,
//
//	hcat://metastore:port/database/table/key1=value1;key2=value2
//
// and the backend asks the Hive metastore about it over Thrift, as
// Oozie's HCatURIHandler does through HCatalog's client:
//
//   - Stat (and so the coordinator's input check, fs:exists, hcat:exists)
//     asks get_partitions_by_filter for the URI's partition specification:
//     the path exists when at least one partition matches (a URI may name
//     only some of the table's keys). A missing database or table is a
//     missing path.
//   - Delete (<prepare><delete path="hcat://..."/>, the coordinator's
//     rerun cleanup of output partitions) drops every matching partition
//     with its data (drop_partition, deleteData true); nothing to drop is
//     not an error.
//   - Every other operation is refused with fsys.ErrNotSupported.
//
// Several metastores in the authority (hcat://h1:9083,h2:9083/...) are
// tried in order, starting with the one that answered last. Connections
// use Thrift's binary protocol over a buffered socket without SASL (a
// Kerberos-secured metastore is not reachable yet); docs/storage.md lists
// the settings.
package hcat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/hcat/metastore"
	"github.com/gozie/gozie/internal/hcaturi"
)

// Settings (configuration keys) of the backend, with their defaults.
const (
	// KeyMaxConns bounds the connections open to the metastores of one
	// hcat:// authority at once.
	KeyMaxConns     = "gozie.hcat.max.connections"
	DefaultMaxConns = 8
	// KeyConnectTimeout bounds connecting to one metastore (a duration,
	// or seconds).
	KeyConnectTimeout     = "gozie.hcat.connect.timeout"
	DefaultConnectTimeout = 10 * time.Second
	// KeySocketTimeout bounds each read and write of a call: Hive's own
	// key, whose value is seconds or a duration ("600s").
	KeySocketTimeout     = "hive.metastore.client.socket.timeout"
	DefaultSocketTimeout = 60 * time.Second
	// KeyIdleTimeout is how long an unused connection is kept.
	KeyIdleTimeout     = "gozie.hcat.idle.timeout"
	DefaultIdleTimeout = 60 * time.Second
)

// Scheme is the URI scheme this backend serves.
const Scheme = "hcat"

func init() {
	fsys.Register(fsys.Backend{
		Name:         "HCatalog",
		Schemes:      []string{Scheme},
		ConfPrefixes: []string{"gozie.hcat.", "hive.metastore."},
		Open:         Open,
	})
}

// options are the settings of one store.
type options struct {
	maxConns                                   int
	connectTimeout, socketTimeout, idleTimeout time.Duration
}

func readOptions(c fsys.Config) (options, error) {
	o := options{maxConns: DefaultMaxConns, connectTimeout: DefaultConnectTimeout,
		socketTimeout: DefaultSocketTimeout, idleTimeout: DefaultIdleTimeout}
	if c == nil {
		return o, nil
	}
	if v, ok := c.Get(KeyMaxConns); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return o, fmt.Errorf("%s = [%s]: a positive number is expected", KeyMaxConns, v)
		}
		o.maxConns = n
	}
	for _, d := range []struct {
		key string
		to  *time.Duration
	}{{KeyConnectTimeout, &o.connectTimeout}, {KeySocketTimeout, &o.socketTimeout}, {KeyIdleTimeout, &o.idleTimeout}} {
		v, ok := c.Get(d.key)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		t, err := parseDuration(v)
		if err != nil {
			return o, fmt.Errorf("%s = [%s]: %v", d.key, v, err)
		}
		*d.to = t
	}
	return o, nil
}

// parseDuration reads seconds ("600") or a Go duration ("600s", "2m").
func parseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("a positive duration is expected (seconds, or 30s, 2m)")
	}
	return d, nil
}

// Store is the backend of one hcat:// authority (one metastore, or several
// for failover).
type Store struct {
	root string // hcat://authority
	c    *client
}

// Open returns the backend of the metastores uri's authority names. It
// makes no connection: the first call does.
func Open(_ context.Context, uri *url.URL, c fsys.Config) (fsys.FileSystem, error) {
	o, err := readOptions(c)
	if err != nil {
		return nil, err
	}
	root := Scheme + "://" + uri.Host
	u := &hcaturi.URI{Server: uri.Host}
	servers := u.Servers()
	if len(servers) == 0 {
		return nil, fmt.Errorf("%s: no metastore host:port in the authority", root)
	}
	return &Store{root: root, c: newClient(root, servers, o)}, nil
}

// Close closes the idle connections of the store.
func (s *Store) Close() error { s.c.Close(); return nil }

// Dials counts the connections made so far (for tests and diagnostics).
func (s *Store) Dials() int64 { return s.c.dials.Load() }

// parse reads path p as a partition URI; a malformed one is a permanent
// error of the operation.
func parse(op, p string) (*hcaturi.URI, error) {
	u, err := hcaturi.Parse(p)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w: %v", fs.ErrInvalid, err)}
	}
	return u, nil
}

// partitions returns up to max partitions matching u (max -1: all).
func (s *Store) partitions(ctx context.Context, op string, u *hcaturi.URI, max int16) ([]*metastore.Partition, error) {
	filter, err := u.MetastoreFilter()
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: u.String(), Err: fmt.Errorf("%w: %v", fs.ErrInvalid, err)}
	}
	var parts []*metastore.Partition
	err = s.c.call(ctx, func(ctx context.Context, ms *metastore.ThriftHiveMetastoreClient) (err error) {
		parts, err = ms.GetPartitionsByFilter(ctx, u.DB, u.Table, filter, max)
		return err
	})
	return parts, s.pathError(op, u.String(), err)
}

// pathError words a call's failure: a missing database or table is
// fs.ErrNotExist, a metastore that did not answer stays ErrUnavailable,
// any other exception of the metastore is a permanent failure.
func (s *Store) pathError(op, p string, err error) error {
	if err == nil {
		return nil
	}
	var ne *metastore.NoSuchObjectException
	var me *metastore.MetaException
	switch {
	case errors.As(err, &ne):
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w: metastore: %s", fs.ErrNotExist, ne.GetMessage())}
	case errors.As(err, &me):
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("metastore refused the request: %s", me.GetMessage())}
	case errors.Is(err, fsys.ErrUnavailable):
		return err
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// Stat reports whether a partition matches p: a directory-like entry
// whose time is the partition's creation time, or fs.ErrNotExist.
func (s *Store) Stat(ctx context.Context, p string) (*fsys.FileInfo, error) {
	u, err := parse("stat", p)
	if err != nil {
		return nil, err
	}
	parts, err := s.partitions(ctx, "stat", u, 1)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	fi := &fsys.FileInfo{Path: p, Dir: true}
	if t := parts[0].GetCreateTime(); t > 0 {
		fi.Modified = time.Unix(int64(t), 0).UTC()
	}
	return fi, nil
}

// Delete drops every partition matching p, with its data. Nothing to drop
// (no such partition, table or database) is not an error.
func (s *Store) Delete(ctx context.Context, p string) error {
	u, err := parse("delete", p)
	if err != nil {
		return err
	}
	parts, err := s.partitions(ctx, "delete", u, -1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, part := range parts {
		err := s.c.call(ctx, func(ctx context.Context, ms *metastore.ThriftHiveMetastoreClient) error {
			_, err := ms.DropPartition(ctx, u.DB, u.Table, part.GetValues(), true)
			return err
		})
		if err = s.pathError("delete", p, err); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// refuse is the answer of every other operation.
func refuse(op, p string) error {
	return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w: an HCatalog partition (hcat://) can only be checked and deleted", fsys.ErrNotSupported)}
}

// List is refused.
func (s *Store) List(_ context.Context, p string) ([]*fsys.FileInfo, error) {
	return nil, refuse("list", p)
}

// Open is refused.
func (s *Store) Open(_ context.Context, p string) (io.ReadCloser, error) {
	return nil, refuse("open", p)
}

// Create is refused.
func (s *Store) Create(_ context.Context, p string, _ io.Reader) error { return refuse("create", p) }

// MkdirAll is refused: partitions are added by the jobs writing them.
func (s *Store) MkdirAll(_ context.Context, p string) error { return refuse("mkdir", p) }

// Rename is refused.
func (s *Store) Rename(_ context.Context, src, _ string) error { return refuse("rename", src) }
