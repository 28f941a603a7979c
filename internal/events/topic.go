package events

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gozie/gozie/internal/vocab"
)

// The topic patterns of oozie.service.JMSTopicService.topic.name: a comma
// list of JOBTYPE=topic pairs, where JOBTYPE is WORKFLOW, COORDINATOR,
// BUNDLE or default and the topic a constant or one of the variables.
const (
	patternUser    = "${username}"
	patternJobID   = "${jobId}"
	defaultPattern = "default=" + patternUser
	keyDefault     = "default"
	typeWorkflow   = "WORKFLOW"
	typeCoord      = "COORDINATOR"
	typeBundle     = "BUNDLE"
)

// topics names the topic of each message: the prefix and the pattern of
// the message's job type, its variable substituted.
type topics struct {
	prefix string
	byType map[string]string // job type -> pattern
	def    string            // the default pattern: ${username} or ${jobId}
}

// parseTopics reads the topic.name setting as Oozie's JMSTopicService
// does; a malformed one is refused with E0100.
func parseTopics(name, prefix string) (*topics, error) {
	if strings.TrimSpace(name) == "" {
		name = defaultPattern
	}
	t := &topics{prefix: prefix, byType: map[string]string{}, def: patternUser}
	for _, pair := range strings.Split(strings.TrimSpace(name), ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" || strings.Contains(v, "=") {
			return nil, topicError("property %q has incorrect syntax; it should be a JOBTYPE=topic pair", pair)
		}
		variable := v == patternUser || v == patternJobID
		switch {
		case k == keyDefault:
			if !variable {
				return nil, topicError("topic name %s not allowed in default; allowed topics are [%s, %s]", v, patternUser, patternJobID)
			}
			t.def = v
		case k != typeWorkflow && k != typeCoord && k != typeBundle:
			return nil, topicError("incorrect job type for defining JMS topic: %s; allowed job types are [%s, %s, %s]",
				k, typeWorkflow, typeCoord, typeBundle)
		case !variable && strings.Contains(v, "$"):
			return nil, topicError("JMS topic value %s for a job type is incorrect; correct values are [%s, %s]", v, patternUser, patternJobID)
		default:
			t.byType[k] = v
		}
	}
	return t, nil
}

// topicError is a topic setting's refusal, with Oozie's code E0100 (a
// service could not be initialized).
func topicError(format string, args ...any) error {
	return vocab.Errorf("E0100", "Could not initialize service [JMSTopicService], %s", fmt.Sprintf(format, args...))
}

// jobType is the JMSTopicService job type of an app type, and whether the
// job the topic variable ${jobId} names is the parent (an action's).
func jobType(appType string) (typ string, parent bool) {
	switch appType {
	case KindWorkflowJob:
		return typeWorkflow, false
	case appTypeWfAction:
		return typeWorkflow, true
	case "COORDINATOR_JOB":
		return typeCoord, false
	case KindCoordAction:
		return typeCoord, true
	case "BUNDLE_JOB":
		return typeBundle, false
	case "BUNDLE_ACTION":
		return typeBundle, true
	}
	return "", false
}

// topic is the topic of m: its job type's pattern (else the default one),
// ${username} replaced by the user and ${jobId} by the job (an action's
// parent: a coordinator action's coordinator), after the prefix.
func (t *topics) topic(m Message) string {
	appType := m.Properties[propAppType]
	if appType == "" {
		appType = m.Kind
	}
	typ, parent := jobType(appType)
	pattern, ok := t.byType[typ]
	if !ok {
		pattern = t.def
	}
	switch pattern {
	case patternUser:
		pattern = m.User
	case patternJobID:
		var ids struct {
			ID       string `json:"id"`
			ParentID string `json:"parentId"`
		}
		// A body that is not JSON leaves the ids empty, and the topic
		// the bare prefix, rather than losing the event.
		_ = json.Unmarshal([]byte(m.Body), &ids)
		pattern = ids.ID
		if parent && ids.ParentID != "" {
			pattern = ids.ParentID
		}
	}
	return t.prefix + pattern
}
