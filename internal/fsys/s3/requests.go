package s3

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// RequestCounts is how many HTTP requests the S3 backend sent, per S3
// operation (HeadObject, ListObjectsV2, PutObject, ...).
type RequestCounts map[string]int64

// Total is the number of requests of every operation.
func (c RequestCounts) Total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// Sub returns the requests made since before was taken.
func (c RequestCounts) Sub(before RequestCounts) RequestCounts {
	out := RequestCounts{}
	for k, v := range c {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Names returns the operations counted, sorted.
func (c RequestCounts) Names() []string {
	out := make([]string, 0, len(c))
	for k := range c {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// requests counts per operation, for the whole process: every store's
// client adds to it, so that a benchmark sees what one input check cost
// whatever buckets it touched.
var requests sync.Map // operation name → *atomic.Int64

// Requests returns a snapshot of the requests every S3 backend of this
// process has sent since it started (or since ResetRequests), per
// operation. Each attempt counts: a retried request counts twice.
func Requests() RequestCounts {
	out := RequestCounts{}
	requests.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// ResetRequests sets every count back to zero.
func ResetRequests() {
	requests.Range(func(k, v any) bool {
		v.(*atomic.Int64).Store(0)
		return true
	})
}

// countRequests is an API option adding a middleware that counts each
// attempt: it sits at the end of the finalize step, after the retry loop
// and before the request is sent.
func countRequests(stack *middleware.Stack) error {
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("gozieCountRequests",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			op := awsmiddleware.GetOperationName(ctx)
			v, ok := requests.Load(op)
			if !ok {
				v, _ = requests.LoadOrStore(op, new(atomic.Int64))
			}
			v.(*atomic.Int64).Add(1)
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
}
