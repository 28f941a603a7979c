// Package azure is gozie's Azure Blob Storage backend: abfs://, abfss://,
// wasb:// and wasbs:// URIs (container@account.dfs.core.windows.net or
// container@account.blob.core.windows.net), all served through the Blob
// API with flat-namespace semantics, whatever the account is. Importing
// it (internal/fsys/all does) registers the schemes with fsys.
//
// Directories are prefixes: a directory exists when a blob lies below
// "dir/" or when a zero-length marker blob "dir/" exists (MkdirAll writes
// one). Blobs hadoop-azure wrote as directories (zero-length, metadata
// hdi_isfolder=true, no trailing slash) are read as directories too.
// Rename copies every blob and then deletes the source, so it is not
// atomic, unlike rename on a hierarchical-namespace account through the
// DFS API, which gozie does not use. docs/storage.md is the user's
// description.
package azure

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/gozie/gozie/internal/fsys"
)

// Schemes are the URI schemes this backend serves.
var Schemes = []string{"abfs", "abfss", "wasb", "wasbs"}

func init() {
	fsys.Register(fsys.Backend{
		Name:         "Azure Blob Storage",
		Schemes:      Schemes,
		ConfPrefixes: []string{"fs.azure.", "gozie.fs.azure."},
		Open:         Open,
	})
}

// azureFS is one container of one account, as one store's settings
// describe it.
type azureFS struct {
	s  *settings
	cc *container.Client
	// noBatch is set once the account refused a Blob Batch request
	// (hierarchical-namespace accounts have no batches): deletes then go
	// one by one.
	noBatch atomic.Bool
}

// Open returns the file system of the container uri names (scheme and
// authority), configured from c. It does no I/O: the first operation
// connects. Missing credentials are an error matching
// fsys.ErrCredentials that names the keys to set.
func Open(_ context.Context, uri *url.URL, c fsys.Config) (fsys.FileSystem, error) {
	s, err := parseSettings(uri, c)
	if err != nil {
		return nil, err
	}
	cc, err := newContainerClient(s)
	if err != nil {
		return nil, err
	}
	return &azureFS{s: s, cc: cc}, nil
}

// newContainerClient builds the SDK's client of the container, with the
// shared key or the SAS token, and the retry and timeout settings.
func newContainerClient(s *settings) (*container.Client, error) {
	opts := &container.ClientOptions{ClientOptions: azcore.ClientOptions{
		Retry: policy.RetryOptions{
			MaxRetries:    s.retries,
			RetryDelay:    s.minBackoff,
			MaxRetryDelay: s.maxBackoff,
		},
		Transport: &http.Client{Transport: transport(s)},
	}}
	if s.retries == 0 {
		opts.Retry.MaxRetries = -1 // the SDK's "no retries"; 0 means its default
	}
	containerURL := s.serviceURL + "/" + s.container
	if s.sas != "" {
		return container.NewClientWithNoCredential(containerURL+"?"+s.sas, opts)
	}
	cred, err := container.NewSharedKeyCredential(s.account, s.key)
	if err != nil {
		// The SDK's message is about decoding; the key itself is not in
		// it, and not in this one.
		return nil, fmt.Errorf("%w: the account key in %s is not valid base64", fsys.ErrCredentials, s.credKeys)
	}
	return container.NewClientWithSharedKeyCredential(containerURL, cred, opts)
}

// transport is an HTTP transport with the configured connect and
// response-header timeouts, so that a store that stops answering fails
// the call instead of hanging it (a body may take as long as it takes).
func transport(s *settings) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: s.connect, KeepAlive: 30 * time.Second}).DialContext
	t.ResponseHeaderTimeout = s.read
	t.MaxIdleConnsPerHost = 32
	return t
}

// key returns the blob name of canonical path p of this store: "" for the
// container's root.
func (f *azureFS) key(op, p string) (string, error) {
	rest, ok := strings.CutPrefix(p, f.s.store)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", fmt.Errorf("azure: %s %s: path is not on store %s", op, p, f.s.store)
	}
	return strings.Trim(rest, "/"), nil
}

// path returns the canonical path of blob name k.
func (f *azureFS) path(k string) string {
	if k == "" {
		return f.s.store
	}
	return f.s.store + "/" + k
}

// isNotFound reports whether err is the store's "not there" answer.
func isNotFound(err error) bool {
	re := responseError(err)
	return re != nil && re.StatusCode == http.StatusNotFound
}

// responseError returns the service's answer err carries, or nil.
func responseError(err error) *azcore.ResponseError {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re
	}
	return nil
}

// isFolder reports whether blob metadata marks a hadoop-azure directory
// blob (hdi_isfolder=true; the SDK may change the key's case).
func isFolder(md map[string]*string) bool {
	for k, v := range md {
		if strings.EqualFold(k, "hdi_isfolder") && v != nil && strings.EqualFold(*v, "true") {
			return true
		}
	}
	return false
}

var _ interface {
	fsys.FileSystem
	fsys.Walker
	fsys.Summarizer
	fsys.Toucher
} = (*azureFS)(nil)
