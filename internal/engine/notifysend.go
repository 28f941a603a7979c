package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/store"
)

// Defaults of the notification options.
const (
	DefaultNotificationTimeout       = 10 * time.Second
	DefaultNotificationRetries       = 3
	DefaultNotificationRetryInterval = 60 * time.Second
)

// notifier serializes the deliveries of each job, so a listener sees a
// job's notifications in the order of the changes they report.
type notifier struct {
	mu      sync.Mutex
	running map[string]int  // job id -> 1 draining, 2 draining and asked again
	direct  *http.Transport // shared by the GETs without a proxy, for keep-alive
}

// transport is the shared transport of direct GETs; one with a proxy gets
// its own, closed after the GET (proxies are per job and rare).
func (n *notifier) transport() *http.Transport {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.direct == nil {
		// Only the job's proxy, never the environment's.
		n.direct = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}
	}
	return n.direct
}

func (e *Engine) notificationTimeout() time.Duration {
	if e.opts.NotificationTimeout > 0 {
		return e.opts.NotificationTimeout
	}
	return DefaultNotificationTimeout
}

func (e *Engine) notificationRetries() int {
	switch {
	case e.opts.NotificationRetries < 0:
		return 0
	case e.opts.NotificationRetries == 0:
		return DefaultNotificationRetries
	}
	return e.opts.NotificationRetries
}

// notificationDelay is the wait before retry number n (1-based): the
// interval, doubled for each earlier retry, capped at an hour.
func (e *Engine) notificationDelay(n int) time.Duration {
	d := e.opts.NotificationRetryInterval
	if d <= 0 {
		d = DefaultNotificationRetryInterval
	}
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// performHTTPNotify delivers the pending notifications of ef's job, ef
// among them. One goroutine per job delivers them in commit order; a call
// while it runs makes it look again when done, so none is missed.
func (e *Engine) performHTTPNotify(ef *store.Effect) {
	n := &e.notifier
	n.mu.Lock()
	if n.running == nil {
		n.running = map[string]int{}
	}
	if n.running[ef.JobID] > 0 {
		n.running[ef.JobID] = 2
		n.mu.Unlock()
		return
	}
	n.running[ef.JobID] = 1
	n.mu.Unlock()
	for {
		e.deliverNotifications(e.rt.Context(), ef.JobID)
		n.mu.Lock()
		if n.running[ef.JobID] == 2 && e.rt.Context().Err() == nil {
			n.running[ef.JobID] = 1
			n.mu.Unlock()
			continue
		}
		delete(n.running, ef.JobID)
		var idle *http.Transport
		if len(n.running) == 0 {
			idle = n.direct
		}
		n.mu.Unlock()
		if idle != nil {
			// Nothing more to send for now: keep no connections open
			// to listeners between bursts.
			idle.CloseIdleConnections()
		}
		return
	}
}

// deliverNotifications sends a job's pending notifications oldest first.
// A failed one holds back the later ones until it is delivered or given
// up, so the order survives retries.
func (e *Engine) deliverNotifications(ctx context.Context, jobID string) {
	var pending []*store.Effect
	err := e.store.View(ctx, func(tx store.Tx) error {
		all, err := tx.PendingEffects(ctx, jobID, 0)
		for _, ef := range all {
			if ef.Kind == EffectHTTPNotify {
				pending = append(pending, ef)
			}
		}
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			// Left pending: the sweep dispatches them again.
			e.rt.LogLimited("notify "+jobID, "gozie: notifications of %s: %v (will try again)", jobID, err)
		}
		return
	}
	slices.SortFunc(pending, func(a, b *store.Effect) int { return cmp.Compare(a.ID, b.ID) })
	for _, ef := range pending {
		if ef.NotBefore.After(e.clock.Now()) {
			return // waiting for a retry; its timer delivers it and the rest
		}
		target, proxy := splitNotifyPayload(ef.Payload)
		status, err := e.sendNotification(ctx, target, proxy)
		if ctx.Err() != nil {
			return // shutting down: still pending, the next start sends it
		}
		var perm *permanentError
		switch {
		case err == nil:
			e.finishNotification(ctx, ef, LevelInfo, fmt.Sprintf("Notification [%s] delivered, HTTP status [%d]", target, status))
			continue
		case errors.As(err, &perm) || ef.Attempt >= e.notificationRetries():
			e.finishNotification(ctx, ef, LevelWarn, fmt.Sprintf("Notification [%s] not delivered after %d attempt(s), giving up: %v",
				target, ef.Attempt+1, err))
			continue
		}
		e.logf("gozie: notification %s of %s, attempt %d: %v (will retry)", target, jobID, ef.Attempt+1, err)
		e.retryNotifications(ctx, ef)
		return
	}
}

// finishNotification marks a notification performed and logs its outcome
// to its job's log, in one transaction.
func (e *Engine) finishNotification(ctx context.Context, ef *store.Effect, level, msg string) {
	err := e.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.DoneEffect(ctx, ef.ID); err != nil {
			return err
		}
		return tx.AppendLog(ctx, &store.LogEntry{JobID: ef.JobID, ActionID: ef.ActionID, Time: e.now(), Level: level, Message: msg})
	})
	if err != nil && ctx.Err() == nil {
		e.logf("gozie: notification effect %d: %v", ef.ID, err)
	}
}

// retryNotifications schedules the failed head of a job's queue again
// after the backoff. The store cannot change an effect, so the head and
// every later notification are replaced by copies (new, larger ids, same
// order) delayed by NotBefore: a restart meanwhile waits the same. The
// later ones are read in the same transaction, so one committed since the
// queue was read is not left ahead of the head.
func (e *Engine) retryNotifications(ctx context.Context, head *store.Effect) {
	at := e.now().Add(e.notificationDelay(head.Attempt + 1))
	var again []*store.Effect
	err := e.store.Update(ctx, func(tx store.Tx) error {
		again = again[:0]
		all, err := tx.PendingEffects(ctx, head.JobID, 0)
		if err != nil {
			return err
		}
		slices.SortFunc(all, func(a, b *store.Effect) int { return cmp.Compare(a.ID, b.ID) })
		for _, ef := range all {
			if ef.Kind != EffectHTTPNotify || ef.ID < head.ID {
				continue
			}
			if err := tx.DoneEffect(ctx, ef.ID); err != nil {
				return err
			}
			cp := &store.Effect{JobID: ef.JobID, ActionID: ef.ActionID, Kind: ef.Kind, Attempt: ef.Attempt,
				Payload: ef.Payload, NotBefore: ef.NotBefore, CreatedTime: ef.CreatedTime}
			if ef.ID == head.ID {
				cp.Attempt++
			}
			if cp.NotBefore.Before(at) {
				cp.NotBefore = at
			}
			if err := tx.AddEffect(ctx, cp); err != nil {
				return err
			}
			again = append(again, cp)
		}
		return nil
	})
	if err != nil || len(again) == 0 {
		if err != nil && ctx.Err() == nil {
			e.logf("gozie: notifications of %s: %v", head.JobID, err)
		}
		return
	}
	// The head's timer starts the next round; the others follow it.
	e.rt.Dispatch(again[:1])
}

// permanentError is a notification that no retry can deliver (a malformed
// URL or proxy).
type permanentError struct{ err error }

func (p *permanentError) Error() string { return p.err.Error() }

// sendNotification makes the HTTP GET; any 2xx answer is a delivery.
func (e *Engine) sendNotification(ctx context.Context, target, proxy string) (int, error) {
	tr := e.notifier.transport()
	if proxy != "" {
		u, err := parseNotificationProxy(proxy)
		if err != nil {
			return 0, &permanentError{err}
		}
		tr = &http.Transport{Proxy: http.ProxyURL(u)}
		defer tr.CloseIdleConnections()
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, &permanentError{fmt.Errorf("invalid notification URL [%s]", target)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, &permanentError{err}
	}
	client := &http.Client{Transport: tr, Timeout: e.notificationTimeout()}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("HTTP status [%d]", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// parseNotificationProxy reads Oozie's proxy format: host:port, or
// type@host:port with type http (the default) or socks, which is SOCKS5.
func parseNotificationProxy(p string) (*url.URL, error) {
	scheme := "http"
	if typ, hostPort, ok := strings.Cut(p, "@"); ok {
		switch strings.ToLower(strings.TrimSpace(typ)) {
		case "http":
		case "socks":
			scheme = "socks5"
		default:
			return nil, fmt.Errorf("invalid notification proxy [%s]: type must be http or socks", p)
		}
		p = hostPort
	}
	p = strings.TrimSpace(p)
	host, port, err := net.SplitHostPort(p)
	if err != nil || host == "" || port == "" || strings.ContainsAny(p, "/?#@ ") {
		return nil, fmt.Errorf("invalid notification proxy [%s]: want host:port", p)
	}
	return &url.URL{Scheme: scheme, Host: p}, nil
}
