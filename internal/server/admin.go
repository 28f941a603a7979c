package server

import (
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/redact"
	"github.com/gozie/gozie/internal/rest"
	"github.com/gozie/gozie/internal/schedule"
)

// adminInfo are the admin resources that describe the server's host and
// configuration: admins only, unless AuthOptions.AdminInfoAnonymous.
var adminInfo = map[string]bool{"os-env": true, "java-sys-properties": true, "configuration": true}

// v0Admin are the admin resources v0 declares (rest-api.md 2).
var v0Admin = map[string]bool{"status": true, "os-env": true, "java-sys-properties": true,
	"configuration": true, "instrumentation": true, "build-version": true}

// handleAdmin serves /oozie/vN/admin/<resource>.
func (s *Server) handleAdmin(w http.ResponseWriter, r *http.Request, c *call, ver, res string) error {
	if strings.Contains(res, "/") || (ver == "v0" && !v0Admin[res]) {
		return errInvalidResource(res)
	}
	if res == "purge" && ver == "v2" && s.opts.Purge != nil && (r.Method == http.MethodPut || r.Method == http.MethodGet) {
		return s.purge(w, r, c)
	}
	if r.Method == http.MethodPut {
		if res != "status" {
			return errInvalidResource(res)
		}
		return s.putStatus(w, r, c, ver)
	}
	if r.Method != http.MethodGet {
		return errInvalidResource(res)
	}
	q := r.URL.Query()
	for _, p := range []string{"systemmode", "safemode"} {
		if q.Has(p) {
			return errInvalidParam(p)
		}
	}
	if adminInfo[res] && !s.auth.opts.AdminInfoAnonymous && s.auth.opts.Authorization && !s.auth.isAdmin(c.user) {
		return s.auth.errNotAdmin(c.user)
	}
	switch res {
	case "status":
		if ver == "v0" {
			writeJSON(w, rest.SafeModeStatus{SafeMode: s.SystemMode() != ModeNormal})
		} else {
			writeJSON(w, rest.SystemStatus{SystemMode: s.SystemMode()})
		}
	case "build-version":
		writeJSON(w, map[string]any{"buildVersion": s.opts.Version, "buildInfo": map[string]string{
			"build.version": s.opts.Version, "build.user": "gozie", "build.time": "",
			"vc.revision": "", "vc.url": "", "go.version": runtime.Version(),
		}})
	case "available-timezones":
		zones := schedule.AvailableZones(s.opts.Now())
		list := rest.Timezones{Zones: make([]rest.Timezone, 0, len(zones))}
		for _, z := range zones {
			list.Zones = append(list.Zones, rest.Timezone{DisplayName: z.DisplayName, ID: z.ID})
		}
		writeJSON(w, list)
	case "os-env":
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			if redact.EnvSecretName(k) {
				v = redact.Mask
			}
			env[k] = s.maskValue(k, v)
		}
		writeJSON(w, env)
	case "java-sys-properties":
		// gozie has no JVM; these are the properties a Java client or
		// console most often reads, with gozie's own values.
		host, _ := os.Hostname()
		wd, _ := os.Getwd()
		writeJSON(w, map[string]string{
			"os.name": runtime.GOOS, "os.arch": runtime.GOARCH, "user.name": osUserName(),
			"user.dir": wd, "java.version": runtime.Version(), "line.separator": "\n",
			"file.separator": string(os.PathSeparator), "host.name": host,
		})
	case "configuration":
		out := map[string]string{}
		for k, v := range s.opts.Config {
			out[k] = s.maskValue(k, v)
		}
		writeJSON(w, out)
	case "instrumentation":
		writeJSON(w, s.instrumentation())
	case "metrics":
		if ver != "v2" {
			return errInvalidParam("Not supported in " + ver)
		}
		writeJSON(w, s.dropwizardMetrics())
	case "queue-dump":
		writeJSON(w, rest.QueueDump{Queue: []rest.QueueEntry{}, UniqueMap: []rest.UniqueEntry{}})
	case "available-oozie-servers":
		if ver != "v2" {
			return errInvalidParam("Not supported in " + ver)
		}
		if s.opts.Cluster == nil {
			host, _ := os.Hostname()
			writeJSON(w, map[string]string{host: s.opts.BaseURL})
			return nil
		}
		// Several servers: every live one, by its gozie.server.id (an
		// earlier instance of the same name is dead by definition).
		live, err := s.opts.Cluster.Live(r.Context())
		if err != nil {
			return err
		}
		out := map[string]string{}
		for _, srv := range live {
			out[srv.Name] = srv.URL
		}
		writeJSON(w, out)
	case "list_sharelib":
		return s.listShareLib(w, r)
	case "update_sharelib":
		return s.updateShareLib(w, r, c)
	default:
		return errInvalidResource(res)
	}
	return nil
}

// putStatus changes the system mode; only admins may (E0503) when
// authorization is on.
func (s *Server) putStatus(w http.ResponseWriter, r *http.Request, c *call, ver string) error {
	q := r.URL.Query()
	var mode string
	if ver == "v0" {
		v := q.Get("safemode")
		switch {
		case !q.Has("safemode"):
			return errMissingParam("safemode")
		case v == "true":
			mode = ModeNoWebService
		case v == "false":
			mode = ModeNormal
		default:
			return errorf(http.StatusBadRequest, "E0304", "Invalid parameter type, parameter [safemode] expected type [boolean]")
		}
	} else {
		if !q.Has("systemmode") {
			return errMissingParam("systemmode")
		}
		mode = q.Get("systemmode")
		switch mode {
		case ModeNormal, ModeNoWebService, ModeSafeMode:
		default:
			return &apiError{status: http.StatusBadRequest, code: "E1603",
				msg: "No enum constant org.apache.oozie.client.OozieClient.SYSTEM_MODE." + mode}
		}
	}
	if s.auth.opts.Authorization && !s.auth.isAdmin(c.user) {
		return s.auth.errNotAdmin(c.user)
	}
	s.mode.Store(mode)
	w.WriteHeader(http.StatusOK)
	return nil
}

// purge starts a purge round (Oozie 5's admin purge: PUT, as its client
// sends it, or GET, as its REST documentation shows it) and answers at
// once; the round's outcome goes to the server log. Admins only when
// authorization is on; a malformed parameter answers 400 E0302 naming it.
func (s *Server) purge(w http.ResponseWriter, r *http.Request, c *call) error {
	if s.auth.opts.Authorization && !s.auth.isAdmin(c.user) {
		return s.auth.errNotAdmin(c.user)
	}
	if err := s.opts.Purge(r.URL.Query()); err != nil {
		return errorf(http.StatusBadRequest, "E0302", "Invalid parameter [%s]", err.Error())
	}
	writeJSON(w, map[string]string{"purge": "Purge command executed successfully"})
	return nil
}

func userOrQ(u string) string {
	if u == "" {
		return "?"
	}
	return u
}

// maskValue is what admin/configuration and admin/os-env show of a
// setting: nothing of a secret-named one (redact.SecretName and
// gozie.configuration.mask.names), nor of the basic users file's
// location; the others, the store DSN (gozie.db, GOZIE_DB) among them,
// with any password they embed masked, and secret settings inside them
// (JAVA_OPTS=-Djavax.net.ssl.trustStorePassword=x), as Oozie masks them.
func (s *Server) maskValue(name, v string) string {
	n := strings.ToLower(name)
	if s.masker.SecretName(name) || strings.Contains(n, "users.file") || strings.Contains(n, "users_file") {
		return redact.Mask
	}
	return s.masker.Text(v)
}

func osUserName() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "gozie"
}

// instrumentation renders the counters in the shape of rest-api.md 9.3.
func (s *Server) instrumentation() map[string]any {
	counters := s.counters()
	names := make([]string, 0, len(counters))
	for n := range counters {
		names = append(names, n)
	}
	sort.Strings(names)
	var data []map[string]any
	for _, n := range names {
		data = append(data, map[string]any{"name": n, "value": counters[n]})
	}
	uptime := time.Duration(s.opts.Now().Sub(s.started)).Milliseconds()
	return map[string]any{
		"variables": []any{map[string]any{"group": "gozie", "data": []any{
			map[string]any{"name": "system.mode", "value": s.SystemMode()},
			map[string]any{"name": "uptime.ms", "value": uptime},
			map[string]any{"name": "goroutines", "value": runtime.NumGoroutine()},
		}}},
		"samplers": []any{},
		"counters": []any{map[string]any{"group": "gozie", "data": data}},
		"timers":   []any{},
	}
}

// dropwizardMetrics renders the counters in the shape of v2 admin/metrics.
func (s *Server) dropwizardMetrics() map[string]any {
	counters := map[string]any{}
	for n, v := range s.counters() {
		counters[n] = map[string]int64{"count": v}
	}
	return map[string]any{
		"gauges": map[string]any{
			"system.mode": map[string]any{"value": s.SystemMode()},
			"goroutines":  map[string]any{"value": runtime.NumGoroutine()},
		},
		"counters":   counters,
		"timers":     map[string]any{},
		"histograms": map[string]any{},
	}
}

// counters are the server's own counters and those of Options.Counters.
func (s *Server) counters() map[string]int64 {
	c := s.metrics.counters()
	if s.opts.Counters != nil {
		for n, v := range s.opts.Counters() {
			c[n] = v
		}
	}
	return c
}
