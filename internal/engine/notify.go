package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
	"github.com/gozie/gozie/internal/vocab"
)

// The job properties that ask for HTTP notifications (workflow
// spec: wf 5); the coordinator's are in package coordengine.
const (
	// PropWorkflowNotificationURL is notified on every status change of a
	// workflow job; tokens $jobId, $status, $parentId.
	PropWorkflowNotificationURL = vocab.PropWorkflowNotificationURL
	// PropWorkflowNotificationProxy is the proxy of both workflow URLs:
	// host:port, or type@host:port with type http or socks.
	PropWorkflowNotificationProxy = vocab.PropWorkflowNotificationProxy
	// PropActionNotificationURL is notified when a workflow job enters
	// and leaves an action node, and once per decision node; tokens
	// $jobId, $nodeName, $status.
	PropActionNotificationURL = vocab.PropActionNotificationURL
)

// EffectHTTPNotify is an HTTP GET notification to deliver
// (effect.EffectHTTPNotify).
const EffectHTTPNotify = effect.EffectHTTPNotify

// The tokens of the notification URLs. Oozie replaces them literally,
// without URL-encoding: the values (ids, node names, statuses) need none.
var (
	jobTokens = func(jobID, status, parentID string) *strings.Replacer {
		return strings.NewReplacer("$jobId", jobID, "$status", status, "$parentId", parentID)
	}
	nodeTokens = func(jobID, nodeName, status string) *strings.Replacer {
		return strings.NewReplacer("$jobId", jobID, "$nodeName", nodeName, "$status", status)
	}
)

// NotifyPayload is the payload of an EffectHTTPNotify
// (effect.NotifyPayload).
func NotifyPayload(url, proxy string) string { return effect.NotifyPayload(url, proxy) }

// splitNotifyPayload undoes NotifyPayload.
func splitNotifyPayload(p string) (url, proxy string) {
	url, rest, _ := strings.Cut(p, "\n")
	return url, strings.TrimPrefix(rest, "proxy=")
}

// nodeStarted reports whether an action record's status says its
// executor's Start has succeeded: the job has entered the node.
func nodeStarted(status string) bool {
	switch status {
	case store.ActionRunning, store.ActionDone, store.ActionEndRetry, store.ActionEndManual,
		store.ActionOK, store.ActionError:
		return true
	}
	return false
}

// nodeEnded reports whether the job has left the node for good.
func nodeEnded(status string) bool {
	switch status {
	case store.ActionOK, store.ActionError, store.ActionFailed, store.ActionKilled:
		return true
	}
	return false
}

// nodeEndStatus is $status of a node's end notification: the transition
// taken (T:<node>); an action killed or failed takes none, so its status
// is sent instead (S:KILLED, S:FAILED).
func nodeEndStatus(a *store.Action) string {
	if (a.Status == store.ActionOK || a.Status == store.ActionError) && a.Transition != "" {
		return "T:" + a.Transition
	}
	return "S:" + a.Status
}

// queueNotifications adds the notification effects of the changes about to
// be committed, so they are recorded in the same transaction as the
// changes. It compares with what the job log last recorded, so it must run
// before takeLogs. st.mu must be held.
func (e *Engine) queueNotifications(st *jobState, dirty []*store.Action, now time.Time) {
	jobURL, _ := st.conf.Get(PropWorkflowNotificationURL)
	nodeURL, _ := st.conf.Get(PropActionNotificationURL)
	jobURL, nodeURL = strings.TrimSpace(jobURL), strings.TrimSpace(nodeURL)
	if jobURL == "" && nodeURL == "" {
		return
	}
	proxy, _ := st.conf.Get(PropWorkflowNotificationProxy)
	var nodes []*store.Effect
	if nodeURL != "" {
		for _, a := range dirty {
			control := strings.HasPrefix(a.Type, ":")
			if control {
				continue // start, end, kill, fork, join: no node of the user's
			}
			key := st.log.actions[a.Name]
			if key == logKey(a) {
				continue
			}
			before, attempt, _ := strings.Cut(key, "/")
			var statuses []string
			if attempt != fmt.Sprint(a.Attempt) {
				// A new attempt. One in USER_RETRY follows an attempt that
				// ran: if it ran within this change, it entered the node.
				if a.Status == store.ActionUserRetry && !nodeStarted(before) && !nodeEnded(before) {
					statuses = append(statuses, "S:"+store.ActionRunning)
				}
				before = ""
			}
			if a.Type != TypeDecision && !nodeStarted(before) && !nodeEnded(before) && nodeStarted(a.Status) {
				statuses = append(statuses, "S:"+store.ActionRunning)
			}
			if nodeEnded(a.Status) && !nodeEnded(before) {
				statuses = append(statuses, nodeEndStatus(a))
			}
			for _, s := range statuses {
				nodes = append(nodes, &store.Effect{Kind: EffectHTTPNotify, ActionID: a.ID, CreatedTime: now,
					Payload: NotifyPayload(nodeTokens(st.job.ID, a.Name, s).Replace(nodeURL), proxy)})
			}
		}
	}
	var job *store.Effect
	if jobURL != "" && st.job.Status != st.log.jobStatus {
		job = &store.Effect{Kind: EffectHTTPNotify, CreatedTime: now,
			Payload: NotifyPayload(jobTokens(st.job.ID, st.job.Status, st.job.ParentID).Replace(jobURL), proxy)}
	}
	// A job that starts or resumes is notified before the nodes it
	// enters; one that ends, after the nodes it left.
	if job != nil && !store.Terminal(st.job.Status) {
		st.addEffect(job)
		job = nil
	}
	for _, ef := range nodes {
		st.addEffect(ef)
	}
	if job != nil {
		st.addEffect(job)
	}
}
