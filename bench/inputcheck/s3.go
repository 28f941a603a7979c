package main

import "github.com/gozie/gozie/internal/fsys/s3"

// The S3 backend counts its requests: the benchmark reports them per
// operation.
func init() {
	storeRequests = func() map[string]int64 { return s3.Requests() }
}
