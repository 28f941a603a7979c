package coordengine

import (
	"strings"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/effect"
	"github.com/gozie/gozie/internal/store"
)

// The job properties that ask for HTTP notifications of coordinator
// actions (spec: coord 15); the workflow engine
// delivers them (effect.EffectHTTPNotify).
const (
	// PropCoordActionNotificationURL is notified on every status change
	// of a coordinator action; tokens $actionId, $status.
	PropCoordActionNotificationURL = "oozie.coord.action.notification.url"
	// PropCoordActionNotificationProxy is the proxy of the coordinator
	// action URL, in the format of vocab.PropWorkflowNotificationProxy.
	PropCoordActionNotificationProxy = "oozie.coord.action.notification.proxy"
)

// coordActionTokens replaces the tokens of the notification URL. Oozie
// replaces them literally, without URL-encoding: the values (ids,
// statuses) need none.
func coordActionTokens(actionID, status string) *strings.Replacer {
	return strings.NewReplacer("$actionId", actionID, "$status", status)
}

// queueCoordNotifications adds a notification effect for every status an
// action of the change moves to, in order. The change records each step
// (coordChange.steps): one change may move an action several steps
// (WAITING -> READY -> SUBMITTED), and each is a status change to report.
// A newly materialized action has no status to change from, so its
// creation is not notified.
func (e *Engine) queueCoordNotifications(c *coordChange) {
	if len(c.actions) == 0 || !strings.Contains(c.job.Conf, PropCoordActionNotificationURL) {
		return // the common case, decided without parsing the configuration
	}
	props, err := conf.ParseXML(strings.NewReader(c.job.Conf), "job "+c.job.ID)
	if err != nil {
		return
	}
	url, _ := props.Get(PropCoordActionNotificationURL)
	if url = strings.TrimSpace(url); url == "" {
		return
	}
	proxy, _ := props.Get(PropCoordActionNotificationProxy)
	add := func(actionID, status string) {
		c.addEffect(&store.Effect{Kind: effect.EffectHTTPNotify, ActionID: actionID,
			Payload: effect.NotifyPayload(coordActionTokens(actionID, status).Replace(url), proxy)})
	}
	last := map[string]string{} // action id -> last status notified
	for _, st := range c.steps {
		if c.touched[st.actionID] {
			last[st.actionID] = st.to
			add(st.actionID, st.to)
		}
	}
	// A status set without a recorded step is still reported, once.
	for _, a := range c.actions {
		if before := c.before[a.ID]; before != "" && before != a.Status && last[a.ID] != a.Status {
			add(a.ID, a.Status)
		}
	}
}
