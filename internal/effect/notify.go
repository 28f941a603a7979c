package effect

import (
	"strings"

	"github.com/gozie/gozie/internal/store"
)

// ParentNotifyKind is the effect kind by which the end of a child job
// reaches its parent job parentID, whichever engine runs the parent: a
// workflow parent (and one of an unknown kind) is store.EffectNotify, the
// workflow engine's own; a parent of kind K (the id's "-K" suffix, C for
// coordinators) is "notify-K", which K's engine registers. The child's
// engine writes store.EffectNotify and routes it (Router), so that the
// effects stored by earlier versions go the same way.
func ParentNotifyKind(parentID string) string {
	i := strings.LastIndexByte(parentID, '-')
	if i < 0 {
		return store.EffectNotify
	}
	return NotifyKind(parentID[i+1:])
}

// NotifyKind is the kind ParentNotifyKind names for parents of job kind
// k ("W", "C").
func NotifyKind(k string) string {
	if k == "W" || k == "" {
		return store.EffectNotify
	}
	return store.EffectNotify + "-" + k
}

// EffectHTTPNotify is an HTTP GET notification to deliver, for a job of
// either engine; the workflow engine registers it and delivers them.
// Payload is the URL with its tokens replaced, followed by
// "\nproxy=<proxy>" when a proxy is configured (NotifyPayload); Attempt
// counts the failed deliveries so far.
const EffectHTTPNotify = "http-notify"

// NotifyPayload is the payload of an EffectHTTPNotify: the URL to get,
// with its tokens replaced, and the proxy ("" for none) in the format of
// the oozie.wf.workflow.notification.proxy property.
func NotifyPayload(url, proxy string) string {
	if proxy = strings.TrimSpace(proxy); proxy != "" {
		return url + "\nproxy=" + proxy
	}
	return url
}
