package benchserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// StatusError is an answer of another HTTP status than the one wanted;
// Msg carries the start of the body.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string { return e.Msg }

// Call sends one request to base+path (body, when not empty, with
// contentType) and reads the whole answer, which is part of what a client
// waits for. An answer of another status than want is a *StatusError.
func Call(ctx context.Context, hc *http.Client, method, url, contentType, body string, want int) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, &StatusError{resp.StatusCode, fmt.Sprintf("%s %s: %s: %.300s", method, req.URL.Path, resp.Status, data)}
	}
	return data, nil
}

// XML is the content type of the REST API's job submissions.
const XML = "application/xml;charset=UTF-8"

// Fan runs fn(0) … fn(n-1) on workers goroutines, as many clients would,
// and returns the first error (after which no further call starts) or the
// context's.
func Fan(ctx context.Context, n, workers int, fn func(i int) error) error {
	next := make(chan int)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case next <- i:
		case err = <-errc:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errc:
		default:
		}
	}
	return err
}
