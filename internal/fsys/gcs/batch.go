package gcs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/api/googleapi"
)

// batchSize is the most calls one batch request of the JSON API takes.
const batchSize = 100

// batchDelete deletes names by one batch request (Google's client for Go
// has none, the connector uses them) and returns the HTTP status each
// call answered, 0 where no answer came for it. An error is the batch
// request's own failure; a batch endpoint that is not there answers a
// *googleapi.Error with its status.
func (g *gcsFS) batchDelete(ctx context.Context, names []string) ([]int, error) {
	_, hc, err := g.client()
	if err != nil {
		return nil, err
	}
	root, err := url.Parse(g.set.apiRoot)
	if err != nil {
		return nil, err
	}
	objects := strings.TrimSuffix(root.Path, "/") + "/storage/v1/b/" + url.PathEscape(g.bucket) + "/o/"
	query := ""
	if g.set.userProject != "" {
		query = "?userProject=" + url.QueryEscape(g.set.userProject)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for i, name := range names {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", "application/http")
		h.Set("Content-Transfer-Encoding", "binary")
		h.Set("Content-ID", "<"+strconv.Itoa(i+1)+">")
		w, err := mw.CreatePart(h)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "DELETE %s%s%s HTTP/1.1\r\nHost: %s\r\n\r\n", objects, url.PathEscape(name), query, root.Host)
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.set.apiRoot+"batch/storage/v1", &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "multipart/mixed; boundary="+mw.Boundary())
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, &googleapi.Error{Code: resp.StatusCode, Message: strings.TrimSpace(string(msg))}
	}
	return readBatch(resp, len(names))
}

// readBatch reads the statuses of a batch response's parts, matched to
// the calls by their Content-ID ("<response-N>" answers "<N>").
func readBatch(resp *http.Response, n int) ([]int, error) {
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		return nil, fmt.Errorf("batch response of type %q, not multipart", resp.Header.Get("Content-Type"))
	}
	codes := make([]int, n)
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return codes, nil
		}
		if err != nil {
			// What was read stands; the rest go one by one.
			return codes, nil
		}
		id := strings.Trim(part.Header.Get("Content-ID"), "<>")
		i, err := strconv.Atoi(strings.TrimPrefix(id, "response-"))
		if err != nil || i < 1 || i > n {
			continue
		}
		r, err := http.ReadResponse(bufio.NewReader(part), nil)
		if err != nil {
			continue
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		codes[i-1] = r.StatusCode
	}
}
