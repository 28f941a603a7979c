//go:build gozie_s3

// This file reads the S3 backend's request counter (internal/fsys/s3,
// from the fs-s3 branch of issue 25). Once that backend is merged, drop
// the build constraint above so that every run reports the HTTP requests
// per S3 operation beside the prober's.

package main

import "github.com/gozie/gozie/internal/fsys/s3"

func init() {
	storeRequests = func() map[string]int64 { return s3.Requests() }
}
