package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozie/gozie/bench/benchserver"
)

// client issues the benchmark's requests against one server.
type client struct {
	base string // http://host:port/oozie
	http *http.Client
	ids  []string // workflow job ids to ask for
	jobs int      // how many jobs the list endpoint pages through
}

func newClient(base string, conns int) *client {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: 90 * time.Second}
	return &client{base: strings.TrimRight(base, "/"), http: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// do sends one request and reads the whole answer, which is part of what
// a client waits for; anything but want is an error carrying the body.
func (c *client) do(ctx context.Context, method, path, contentType, body string, want int) ([]byte, error) {
	return benchserver.Call(ctx, c.http, method, c.base+path, contentType, body, want)
}

// jobInfo asks for a random job's info, as `oozie job -info` does.
func (c *client) jobInfo(ctx context.Context) error {
	id := c.ids[rand.IntN(len(c.ids))]
	_, err := c.do(ctx, http.MethodGet, "/v2/job/"+id+"?show=info", "", "", http.StatusOK)
	return err
}

// jobsPage asks for a random page of 50 jobs (offsets are 1-based), as the
// console and `oozie jobs` do.
func (c *client) jobsPage(ctx context.Context) error {
	offset := 1 + rand.IntN(max(1, c.jobs-50))
	_, err := c.do(ctx, http.MethodGet, fmt.Sprintf("/v2/jobs?len=50&offset=%d", offset), "", "", http.StatusOK)
	return err
}

// discover fills ids and jobs from the server itself, for a server the
// benchmark did not seed; they stay empty when it has no workflow jobs.
func (c *client) discover(ctx context.Context) error {
	data, err := c.do(ctx, http.MethodGet, "/v2/jobs?len=1000", "", "", http.StatusOK)
	if err != nil {
		return err
	}
	var list struct {
		Total     int `json:"total"`
		Workflows []struct {
			ID string `json:"id"`
		} `json:"workflows"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("jobs list: %v", err)
	}
	for _, w := range list.Workflows {
		c.ids = append(c.ids, w.ID)
	}
	c.jobs = list.Total
	return nil
}

// submit posts a workflow configuration with action=start and returns the
// new job id.
func (c *client) submit(ctx context.Context, confXML string) (string, error) {
	data, err := c.do(ctx, http.MethodPost, "/v2/jobs?action=start&user.name=bench", "application/xml;charset=UTF-8", confXML, http.StatusCreated)
	if err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.ID == "" {
		return "", fmt.Errorf("submit: no job id in %.200s", data)
	}
	return out.ID, nil
}

// status returns a job's status (show=status of API v2).
func (c *client) status(ctx context.Context, id string) (string, error) {
	data, err := c.do(ctx, http.MethodGet, "/v2/job/"+id+"?show=status", "", "", http.StatusOK)
	if err != nil {
		return "", err
	}
	var out struct {
		Status string `json:"status"`
	}
	err = json.Unmarshal(data, &out)
	return out.Status, err
}

// countJobs returns how many jobs match a filter such as
// "status=RUNNING;status=PREP".
func (c *client) countJobs(ctx context.Context, filter string) (int, error) {
	data, err := c.do(ctx, http.MethodGet, "/v2/jobs?len=1&filter="+url.QueryEscape(filter), "", "", http.StatusOK)
	if err != nil {
		return 0, err
	}
	var out struct {
		Total int `json:"total"`
	}
	err = json.Unmarshal(data, &out)
	return out.Total, err
}

// closedLoop runs workers that each send the next request as soon as the
// previous one is answered, for dur: the maximum throughput the server
// sustains at that concurrency.
func closedLoop(ctx context.Context, workers int, dur time.Duration, req func(context.Context) error) (*recorder, time.Duration) {
	var r recorder
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	for range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t0 := time.Now()
				err := req(ctx)
				r.record(time.Since(t0), err)
			}
		})
	}
	wg.Wait()
	return &r, time.Since(start)
}

// openLoop sends rate requests per second for dur on a fixed schedule,
// whatever the answers' speed, and measures each latency from the moment
// its request was due. A server that falls behind therefore shows its
// queueing in the percentiles, instead of slowing the load down (the
// "coordinated omission" of closed-loop measurements). workers bounds the
// requests in flight. Requests still waiting for a worker once the
// schedule has ended by as long again (at least 5s) are dropped, so that
// an endpoint far slower than the rate does not hold the benchmark for
// minutes; the summary counts them.
func openLoop(ctx context.Context, rate float64, dur time.Duration, workers int, req func(context.Context) error) (*recorder, time.Duration) {
	n := int(rate * dur.Seconds())
	due := make(chan time.Time, n)
	var r recorder
	var wg sync.WaitGroup
	start := time.Now()
	drain := start.Add(dur + max(dur, 5*time.Second))
	ctx, cancel := context.WithDeadline(ctx, drain.Add(5*time.Second))
	defer cancel()
	for range workers {
		wg.Go(func() {
			for t := range due {
				if time.Now().After(drain) {
					r.drop()
					continue
				}
				err := req(ctx)
				r.record(time.Since(t), err)
			}
		})
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		t := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		if d := time.Until(t); d > 0 {
			time.Sleep(d) // late wake-ups catch up: the next requests are already due
		}
		due <- t
	}
	close(due)
	wg.Wait()
	return &r, time.Since(start)
}

// fixedCount sends n requests with workers in parallel and returns the
// values they produced (submitted job ids).
func fixedCount(ctx context.Context, n, workers int, req func(context.Context) (string, error)) (*recorder, time.Duration, []string) {
	var r recorder
	var wg sync.WaitGroup
	var next atomic.Int64
	var mu sync.Mutex
	var out []string
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				t0 := time.Now()
				v, err := req(ctx)
				r.record(time.Since(t0), err)
				if err == nil {
					mu.Lock()
					out = append(out, v)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return &r, time.Since(start), out
}
