package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/gozie/gozie/internal/rest"
)

// ErrUnavailable is returned by Metrics and Instrumentation when the server
// answers 503: that facility is switched off (exactly one of the two is on).
var ErrUnavailable = &CallError{Status: http.StatusServiceUnavailable, Code: "HTTP error code: 503", Message: "Service Unavailable"}

// Status returns the system mode: NORMAL, NOWEBSERVICE or SAFEMODE.
func (c *Client) Status(ctx context.Context) (string, json.RawMessage, error) {
	var v rest.SystemStatus
	raw, err := c.getJSON(ctx, "admin/status", nil, &v)
	return v.SystemMode, raw, err
}

// SetSystemMode changes the system mode.
func (c *Client) SetSystemMode(ctx context.Context, mode string) error {
	_, err := c.call(ctx, &request{method: http.MethodPut, path: "admin/status", query: url.Values{"systemmode": {mode}}})
	return err
}

// BuildVersion returns the server's buildVersion and the raw buildInfo
// object (build.version, build.time, vc.url, …), which the oozie command
// prints as JSON text.
func (c *Client) BuildVersion(ctx context.Context) (string, json.RawMessage, json.RawMessage, error) {
	var v struct {
		BuildVersion string          `json:"buildVersion"`
		BuildInfo    json.RawMessage `json:"buildInfo"`
	}
	raw, err := c.getJSON(ctx, "admin/build-version", nil, &v)
	return v.BuildVersion, v.BuildInfo, raw, err
}

// Timezone is one entry of the server's time zone list.
type Timezone = rest.Timezone

// Timezones returns the time zones the server accepts.
func (c *Client) Timezones(ctx context.Context) ([]Timezone, json.RawMessage, error) {
	var v rest.Timezones
	raw, err := c.getJSON(ctx, "admin/available-timezones", nil, &v)
	return v.Zones, raw, err
}

// QueueDump is the server's command queue and uniqueness map.
type QueueDump = rest.QueueDump

// QueueDump returns the server's command queue.
func (c *Client) QueueDump(ctx context.Context) (*QueueDump, json.RawMessage, error) {
	var v QueueDump
	raw, err := c.getJSON(ctx, "admin/queue-dump", nil, &v)
	return &v, raw, err
}

// stringMap fetches an admin resource that is a flat object of strings.
func (c *Client) stringMap(ctx context.Context, res string) (map[string]string, json.RawMessage, error) {
	var generic map[string]any
	raw, err := c.getJSON(ctx, "admin/"+res, nil, &generic)
	if err != nil {
		return nil, raw, err
	}
	m := make(map[string]string, len(generic))
	for k, v := range generic {
		switch t := v.(type) {
		case string:
			m[k] = t
		case nil:
			m[k] = "null"
		default:
			b, _ := json.Marshal(t)
			m[k] = string(b)
		}
	}
	return m, raw, nil
}

// Configuration returns the server's effective configuration.
func (c *Client) Configuration(ctx context.Context) (map[string]string, json.RawMessage, error) {
	return c.stringMap(ctx, "configuration")
}

// OSEnv returns the server's environment variables.
func (c *Client) OSEnv(ctx context.Context) (map[string]string, json.RawMessage, error) {
	return c.stringMap(ctx, "os-env")
}

// JavaSysProps returns the server's system properties (gozie: its
// runtime facts under Java property names).
func (c *Client) JavaSysProps(ctx context.Context) (map[string]string, json.RawMessage, error) {
	return c.stringMap(ctx, "java-sys-properties")
}

// Servers returns the servers of the cluster, instance id → URL.
func (c *Client) Servers(ctx context.Context) (map[string]string, json.RawMessage, error) {
	return c.stringMap(ctx, "available-oozie-servers")
}

// Metrics is the Dropwizard metrics registry dump of admin/metrics.
type Metrics struct {
	Counters   map[string]struct{ Count int64 } `json:"counters"`
	Gauges     map[string]struct{ Value any }   `json:"gauges"`
	Timers     map[string]map[string]any        `json:"timers"`
	Histograms map[string]map[string]any        `json:"histograms"`
}

// Metrics returns the server's metrics, or ErrUnavailable when the server
// keeps instrumentation instead.
func (c *Client) Metrics(ctx context.Context) (*Metrics, json.RawMessage, error) {
	var v Metrics
	raw, err := c.getJSON(ctx, "admin/metrics", nil, &v)
	if e, ok := err.(*CallError); ok && e.Status == http.StatusServiceUnavailable {
		return nil, raw, ErrUnavailable
	}
	return &v, raw, err
}

// InstrumentationGroup is one group of an instrumentation section; Data
// elements carry "name" and the section's value keys.
type InstrumentationGroup struct {
	Group string           `json:"group"`
	Data  []map[string]any `json:"data"`
}

// Instrumentation is the legacy instrumentation dump of
// admin/instrumentation.
type Instrumentation struct {
	Counters  []InstrumentationGroup `json:"counters"`
	Variables []InstrumentationGroup `json:"variables"`
	Samplers  []InstrumentationGroup `json:"samplers"`
	Timers    []InstrumentationGroup `json:"timers"`
}

// Instrumentation returns the server's instrumentation, or ErrUnavailable
// when the server keeps metrics instead.
func (c *Client) Instrumentation(ctx context.Context) (*Instrumentation, json.RawMessage, error) {
	var v Instrumentation
	raw, err := c.getJSON(ctx, "admin/instrumentation", nil, &v)
	if e, ok := err.(*CallError); ok && e.Status == http.StatusServiceUnavailable {
		return nil, raw, ErrUnavailable
	}
	return &v, raw, err
}

// ShareLib is one library of the share lib and, when asked for, its files.
type ShareLib = rest.ShareLib

// ListShareLib lists the share libraries whose name fully matches the
// regular expression lib (all when empty).
func (c *Client) ListShareLib(ctx context.Context, lib string) ([]ShareLib, json.RawMessage, error) {
	q := url.Values{}
	if lib != "" {
		q.Set("lib", lib)
	}
	var v rest.ShareLibs
	raw, err := c.getJSON(ctx, "admin/list_sharelib", q, &v)
	return v.ShareLib, raw, err
}

// UpdateShareLib reloads the share lib and returns each server's report;
// a single server answers one object, a cluster an array of them.
func (c *Client) UpdateShareLib(ctx context.Context) ([]map[string]string, json.RawMessage, error) {
	var v any
	raw, err := c.getJSON(ctx, "admin/update_sharelib", url.Values{"allservers": {"true"}}, &v)
	if err != nil {
		return nil, raw, err
	}
	var out []map[string]string
	add := func(x any) {
		obj, _ := x.(map[string]any)
		if inner, ok := obj["sharelibUpdate"].(map[string]any); ok {
			obj = inner
		}
		m := map[string]string{}
		for k, val := range obj {
			if s, ok := val.(string); ok {
				m[k] = s
			} else {
				b, _ := json.Marshal(val)
				m[k] = string(b)
			}
		}
		out = append(out, m)
	}
	if arr, ok := v.([]any); ok {
		for _, x := range arr {
			add(x)
		}
	} else {
		add(v)
	}
	return out, raw, nil
}

// Purge asks the server to purge old jobs. Empty values are sent empty so
// the server uses its defaults.
func (c *Client) Purge(ctx context.Context, wf, coord, bundle, limit, oldCoordAction string) (string, json.RawMessage, error) {
	q := url.Values{"wf": {wf}, "coord": {coord}, "bundle": {bundle}, "limit": {limit}, "oldcoordaction": {oldCoordAction}}
	resp, err := c.call(ctx, &request{method: http.MethodPut, path: "admin/purge", query: q})
	if err != nil {
		return "", nil, err
	}
	var v struct {
		Purge string `json:"purge"`
	}
	if err := decode(resp, &v); err != nil {
		return "", resp.body, err
	}
	return v.Purge, resp.body, nil
}
