// Package metastore is the Go code Thrift generates from
// hive_metastore.thrift, a trimmed copy of the Hive metastore's interface
// (get_partitions_by_filter, drop_partition): the client internal/fsys/hcat
// speaks, and the server its tests run.
package metastore

//go:generate sh -c "thrift -r --gen go:package_prefix=github.com/gozie/gozie/internal/fsys/hcat/,skip_remote -out .. hive_metastore.thrift && gofmt -w ."
