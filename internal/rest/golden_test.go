package rest_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gozie/gozie/internal/coordengine"
	"github.com/gozie/gozie/internal/engine"
	"github.com/gozie/gozie/internal/store"
)

// The golden tests pin the exact bytes of each bean as the engines build
// it from store records: keys, their order, null for unset values, the
// date format and the toString texts. They were written against the
// beans before they moved into this package.

var at = time.Date(2009, 1, 1, 0, 0, 0, 0, time.FixedZone("PST", -8*3600))

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func golden(t *testing.T, name, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", name, got, want)
	}
}

func TestWorkflowJobGolden(t *testing.T) {
	j := &store.Job{ID: "0000001-090101000000000-oozie-joe-W", AppName: "app", AppPath: "/p", User: "joe", Group: "g",
		ACL: "a", ParentID: "0000002-090101000000000-oozie-joe-C@1", ExternalID: "x", Status: store.JobRunning, Run: 2,
		Conf: "<configuration/>", CreatedTime: at, StartTime: at.Add(time.Minute), EndTime: at.Add(time.Hour),
		LastModTime: at.Add(2 * time.Hour)}
	acts := []*store.Action{{ID: j.ID + "@a", Name: "a", Type: "fs", Status: store.ActionOK, Conf: "<fs/>", Cred: "c",
		Retries: 1, UserRetryCount: 2, UserRetryMax: 3, UserRetryInterval: 4, Transition: "end", Data: "k=v", Stats: "s",
		ExternalChildIDs: "e1", ExternalID: "e", ExternalStatus: "OK", TrackerURI: "t", ConsoleURL: "u",
		ErrorCode: "E1", ErrorMessage: "m", StartTime: at, EndTime: at.Add(time.Second)}}
	golden(t, "full", marshal(t, engine.NewJobJSON(j, acts, "http://h:11000/oozie")),
		`{"id":"0000001-090101000000000-oozie-joe-W","appName":"app","appPath":"/p","externalId":"x","parentId":"0000002-090101000000000-oozie-joe-C@1","conf":"\u003cconfiguration/\u003e","status":"RUNNING","lastModTime":"Thu, 01 Jan 2009 10:00:00 GMT","createdTime":"Thu, 01 Jan 2009 08:00:00 GMT","startTime":"Thu, 01 Jan 2009 08:01:00 GMT","endTime":"Thu, 01 Jan 2009 09:00:00 GMT","user":"joe","group":"g","acl":"a","run":2,"consoleUrl":"http://h:11000/oozie?job=0000001-090101000000000-oozie-joe-W","actions":[{"id":"0000001-090101000000000-oozie-joe-W@a","name":"a","cred":"c","type":"fs","conf":"\u003cfs/\u003e","status":"OK","retries":1,"startTime":"Thu, 01 Jan 2009 08:00:00 GMT","endTime":"Thu, 01 Jan 2009 08:00:01 GMT","transition":"end","data":"k=v","stats":"s","externalChildIDs":"e1","externalId":"e","externalStatus":"OK","trackerUri":"t","consoleUrl":"u","errorCode":"E1","errorMessage":"m","userRetryInterval":4,"userRetryCount":2,"userRetryMax":3,"toString":"Action name[a] status[OK]"}],"toString":"Workflow id[0000001-090101000000000-oozie-joe-W] status[RUNNING]"}`)
	golden(t, "empty", marshal(t, engine.NewJobJSON(&store.Job{ID: "W1", Status: "PREP"}, nil, "")),
		`{"id":"W1","appName":null,"appPath":null,"externalId":null,"parentId":null,"conf":null,"status":"PREP","lastModTime":null,"createdTime":null,"startTime":null,"endTime":null,"user":null,"group":null,"acl":null,"run":0,"consoleUrl":null,"actions":[],"toString":"Workflow id[W1] status[PREP]"}`)
	golden(t, "empty action", marshal(t, engine.NewJobJSON(&store.Job{ID: "W1", Status: "PREP"}, []*store.Action{{ID: "W1@x", Name: "x", Type: ":START:", Status: "PREP"}}, "").Actions[0]),
		`{"id":"W1@x","name":"x","cred":null,"type":":START:","conf":null,"status":"PREP","retries":0,"startTime":null,"endTime":null,"transition":null,"data":null,"stats":null,"externalChildIDs":null,"externalId":null,"externalStatus":null,"trackerUri":null,"consoleUrl":null,"errorCode":null,"errorMessage":null,"userRetryInterval":0,"userRetryCount":0,"userRetryMax":0,"toString":"Action name[x] status[PREP]"}`)
}

func TestCoordJobGolden(t *testing.T) {
	j := &store.CoordJob{ID: "0000002-090101000000000-oozie-joe-C", AppName: "c", AppPath: "/c", User: "joe", Group: "g",
		ACL: "a", ExternalID: "x", ParentID: "B1", Status: "RUNNING", Conf: "<configuration/>", Frequency: "60",
		TimeUnit: "MINUTE", TimeZone: "UTC", Concurrency: 2, Throttle: 3, Timeout: 4, Execution: "LIFO", ConsoleURL: "u",
		StartTime: at, EndTime: at.Add(24 * time.Hour), PauseTime: at.Add(12 * time.Hour), LastActionTime: at.Add(time.Hour),
		NextMaterializedTime: at.Add(2 * time.Hour), CreatedTime: at.Add(-time.Hour)}
	a := &store.CoordAction{ID: j.ID + "@1", JobID: j.ID, Number: 1, Status: "WAITING", NominalTime: at, CreatedTime: at,
		LastModTime: at.Add(time.Minute), ExternalID: "W1", ExternalStatus: "RUNNING", MissingDependencies: "m#n",
		CreatedConf: "<c/>", RunConf: "<r/>", ErrorCode: "E", ErrorMessage: "msg", TrackerURI: "t", ConsoleURL: "u"}
	golden(t, "full", marshal(t, coordengine.NewCoordJobJSON(j, []*store.CoordAction{a}, 7)),
		`{"coordJobId":"0000002-090101000000000-oozie-joe-C","coordJobName":"c","coordJobPath":"/c","coordExternalId":"x","bundleId":"B1","conf":"\u003cconfiguration/\u003e","status":"RUNNING","executionPolicy":"LIFO","frequency":"60","timeUnit":"MINUTE","timeZone":"UTC","concurrency":2,"timeOut":4,"lastAction":"Thu, 01 Jan 2009 09:00:00 GMT","nextMaterializedTime":"Thu, 01 Jan 2009 10:00:00 GMT","createdTime":"Thu, 01 Jan 2009 07:00:00 GMT","startTime":"Thu, 01 Jan 2009 08:00:00 GMT","endTime":"Fri, 02 Jan 2009 08:00:00 GMT","pauseTime":"Thu, 01 Jan 2009 20:00:00 GMT","user":"joe","group":"g","acl":"a","consoleUrl":"u","mat_throttling":3,"actions":[{"id":"0000002-090101000000000-oozie-joe-C@1","coordJobId":"0000002-090101000000000-oozie-joe-C","type":null,"actionNumber":1,"createdConf":"\u003cc/\u003e","createdTime":"Thu, 01 Jan 2009 08:00:00 GMT","nominalTime":"Thu, 01 Jan 2009 08:00:00 GMT","lastModifiedTime":"Thu, 01 Jan 2009 08:01:00 GMT","externalId":"W1","status":"WAITING","runConf":"\u003cr/\u003e","missingDependencies":"m#n","pushMissingDependencies":null,"externalStatus":"RUNNING","trackerUri":"t","consoleUrl":"u","errorCode":"E","errorMessage":"msg","toString":"CoordinatorAction name[0000002-090101000000000-oozie-joe-C@1] status[WAITING]"}],"total":7,"toString":"Coordinator application id[0000002-090101000000000-oozie-joe-C] status[RUNNING]"}`)
	golden(t, "empty", marshal(t, coordengine.NewCoordJobJSON(&store.CoordJob{ID: "C1", Status: "PREP"}, nil, 0)),
		`{"coordJobId":"C1","coordJobName":null,"coordJobPath":null,"coordExternalId":null,"bundleId":null,"conf":null,"status":"PREP","executionPolicy":"FIFO","frequency":null,"timeUnit":"NONE","timeZone":null,"concurrency":0,"timeOut":0,"lastAction":null,"nextMaterializedTime":null,"createdTime":null,"startTime":null,"endTime":null,"pauseTime":null,"user":null,"group":null,"acl":null,"consoleUrl":null,"mat_throttling":0,"actions":[],"total":0,"toString":"Coordinator application id[C1] status[PREP]"}`)
	golden(t, "empty action", marshal(t, coordengine.NewCoordActionJSON(&store.CoordAction{ID: "C1@1", JobID: "C1", Number: 1, Status: "READY"})),
		`{"id":"C1@1","coordJobId":"C1","type":null,"actionNumber":1,"createdConf":null,"createdTime":null,"nominalTime":null,"lastModifiedTime":null,"externalId":null,"status":"READY","runConf":null,"missingDependencies":null,"pushMissingDependencies":null,"externalStatus":null,"trackerUri":null,"consoleUrl":null,"errorCode":null,"errorMessage":null,"toString":"CoordinatorAction name[C1@1] status[READY]"}`)
}
