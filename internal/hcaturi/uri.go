// Package hcaturi reads and writes HCatalog partition URIs (spec: coord
// 5.2, 6.8):
//
//	hcat://metastore:port/database/table/key1=value1;key2=value2
//
// The authority may list several metastores separated by commas
// (hcat://h1:9083,h2:9083/...), tried in order; Oozie hands the authority
// to Hive's client as thrift://AUTHORITY. The partition keys keep the
// order they are written in, which is the order every string built from
// the URI uses (the filters of coord:dataInPartitionFilter, the HCatStorer
// argument of coord:dataOutPartitions), as Oozie's HCatURI keeps them.
//
// The package is pure: it parses and formats, the coordinator's EL
// functions (internal/coord) and the metastore backend (internal/fsys/hcat)
// share it.
package hcaturi

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultPort is the Hive metastore's port, used for a metastore written
// without one.
const DefaultPort = "9083"

// Partition is one key=value pair of a partition specification.
type Partition struct {
	Key, Value string
}

// URI is a parsed HCatalog partition URI.
type URI struct {
	// Scheme is the URI's scheme as written ("hcat").
	Scheme string
	// Server is the authority: one metastore host:port, or several
	// separated by commas.
	Server string
	// DB and Table name the table.
	DB, Table string
	// Partitions are the key=value pairs in the order written; a key
	// written twice keeps its first place and its last value.
	Partitions []Partition
}

// Error is a URI that cannot be parsed.
type Error struct {
	URI    string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid HCatalog URI [%s]: %s (expected hcat://metastore:port/database/table/key1=value1;key2=value2)", e.URI, e.Reason)
}

// IsHCat reports whether s is a URI of the hcat scheme (any case).
func IsHCat(s string) bool {
	return len(s) >= 7 && strings.EqualFold(s[:7], "hcat://")
}

// Parse reads an HCatalog partition URI. It refuses, with an *Error
// saying why: a missing authority, a path that is not
// /database/table/partitions, an empty database, table or partition part,
// a pair that is not key=value, a query or fragment, and characters a URI
// may not hold unescaped (spaces, quotes, control characters). Path
// escapes (%2F) are decoded, as Java's URI.getPath decodes them.
func Parse(s string) (*URI, error) {
	bad := func(reason string) (*URI, error) { return nil, &Error{URI: s, Reason: reason} }
	i := strings.Index(s, ":")
	if i <= 0 {
		return bad("no scheme")
	}
	if c := strings.IndexAny(s, " \t\r\n\"<>\\^`{|}?#"); c >= 0 || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		if c < 0 {
			return bad("illegal control character")
		}
		return bad(fmt.Sprintf("illegal character %q at index %d", s[c], c))
	}
	u := &URI{Scheme: s[:i]}
	rest := s[i+1:]
	if !strings.HasPrefix(rest, "//") {
		return bad("Server host and port are missing")
	}
	rest = rest[2:]
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		u.Server, rest = rest, ""
	} else {
		u.Server, rest = rest[:slash], rest[slash:]
	}
	if u.Server == "" {
		return bad("Server host and port are missing")
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return bad("bad escape in the path: " + err.Error())
	}
	// Java's String.split drops trailing empty strings: "/db/t/k=v/" is
	// the same as "/db/t/k=v".
	parts := strings.Split(p, "/")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) != 4 || parts[0] != "" {
		return bad("URI path is not in expected format")
	}
	u.DB, u.Table = parts[1], parts[2]
	switch {
	case u.DB == "":
		return bad("DB name is missing")
	case u.Table == "":
		return bad("Table name is missing")
	}
	for _, kv := range strings.Split(parts[3], ";") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" || strings.Contains(v, "=") {
			return bad("Partition key value pair is not specified properly in (" + kv + ")")
		}
		u.set(k, v)
	}
	if len(u.Partitions) == 0 {
		return bad("Partition details are missing")
	}
	return u, nil
}

// set puts key=value, keeping the place of a key already there.
func (u *URI) set(k, v string) {
	for i := range u.Partitions {
		if u.Partitions[i].Key == k {
			u.Partitions[i].Value = v
			return
		}
	}
	u.Partitions = append(u.Partitions, Partition{k, v})
}

// Value returns the value of partition key k.
func (u *URI) Value(k string) (string, bool) {
	for _, p := range u.Partitions {
		if p.Key == k {
			return p.Value, true
		}
	}
	return "", false
}

// Servers returns the metastores of the authority in order, each as
// host:port (DefaultPort when none is written).
func (u *URI) Servers() []string {
	var out []string
	for _, s := range strings.Split(u.Server, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, ":") || strings.HasSuffix(s, "]") {
			s += ":" + DefaultPort
		}
		out = append(out, s)
	}
	return out
}

// String writes the URI back: scheme://server/db/table/k1=v1;k2=v2.
func (u *URI) String() string {
	var b strings.Builder
	b.WriteString(u.Scheme + "://" + u.Server + "/" + u.DB + "/" + u.Table + "/")
	for i, p := range u.Partitions {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(p.Key + "=" + p.Value)
	}
	return b.String()
}

// Filter is the partition filter of one URI for an action type (spec:
// coord 6.8.3): "(k1=='v1' AND k2=='v2')" for pig (any case), with "="
// for every other type (hive, java, ...).
func (u *URI) Filter(actionType string) string {
	op := "="
	if strings.EqualFold(actionType, "pig") {
		op = "=="
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range u.Partitions {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(p.Key + op + "'" + p.Value + "'")
	}
	b.WriteByte(')')
	return b.String()
}

// StorerString is the partition as HCatStorer takes it (spec: coord
// 6.8.4): 'k1=v1,k2=v2', quotes included.
func (u *URI) StorerString() string {
	var b strings.Builder
	b.WriteByte('\'')
	for i, p := range u.Partitions {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Key + "=" + p.Value)
	}
	b.WriteByte('\'')
	return b.String()
}

// ValueString is the whole partition specification for an action type
// (spec: coord 6.8.8); only "hive-export" is known: k1='v1',k2='v2', what
// a Hive EXPORT/IMPORT ... PARTITION (...) takes.
func (u *URI) ValueString(actionType string) (string, error) {
	if actionType != "hive-export" {
		return "", fmt.Errorf("unsupported type [%s]: the only type is hive-export", actionType)
	}
	var b strings.Builder
	for i, p := range u.Partitions {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Key + "='" + p.Value + "'")
	}
	return b.String(), nil
}

// MetastoreFilter is the filter the metastore's get_partitions_by_filter
// takes for this partition specification: k1="v1" and k2="v2", what
// HCatalog's client sends for a partition map. Hive's filter strings have
// no escapes: a value holding a double quote is quoted with single quotes,
// and one holding both cannot be asked for.
func (u *URI) MetastoreFilter() (string, error) {
	var b strings.Builder
	for i, p := range u.Partitions {
		if i > 0 {
			b.WriteString(" and ")
		}
		q := `"`
		if strings.Contains(p.Value, `"`) {
			if strings.Contains(p.Value, "'") {
				return "", &Error{URI: u.String(), Reason: "partition value [" + p.Value + "] holds both quote characters, which a metastore filter cannot express"}
			}
			q = "'"
		}
		b.WriteString(p.Key + " = " + q + p.Value + q)
	}
	return b.String(), nil
}
