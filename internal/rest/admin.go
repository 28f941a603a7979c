package rest

// The admin beans (rest-api.md 2): the small fixed objects of the admin
// resources. The free-form ones (configuration, os-env, metrics,
// instrumentation) are maps.

// SystemStatus is the answer of admin/status (v1, v2).
type SystemStatus struct {
	SystemMode string `json:"systemMode"`
}

// SafeModeStatus is the answer of v0's admin/status.
type SafeModeStatus struct {
	SafeMode bool `json:"safeMode"`
}

// Timezone is one entry of admin/available-timezones.
type Timezone struct {
	DisplayName string `json:"timezoneDisplayName"`
	ID          string `json:"timezoneId"`
}

// Timezones is the answer of admin/available-timezones.
type Timezones struct {
	Zones []Timezone `json:"available-timezones"`
}

// QueueDump is the answer of admin/queue-dump: the command queue and the
// uniqueness map (always empty in gozie, which has no command queue).
type QueueDump struct {
	Queue     []QueueEntry  `json:"queueDump"`
	UniqueMap []UniqueEntry `json:"uniqueMapDump"`
}

// QueueEntry is one queued command of a queue dump.
type QueueEntry struct {
	CallableDump string `json:"callableDump"`
}

// UniqueEntry is one entry of a queue dump's uniqueness map.
type UniqueEntry struct {
	UniqueEntryDump string `json:"uniqueEntryDump"`
}

// ShareLib is one library of admin/list_sharelib.
type ShareLib struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// ShareLibs is the answer of admin/list_sharelib.
type ShareLibs struct {
	ShareLib []ShareLib `json:"sharelib"`
}
