package launch

import (
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/conf"
)

// MaxOutputKey is Oozie's oozie.action.max.output.data: the most bytes of
// output an action may capture (capture-output, the java action's output
// properties). A server sets it in its configuration; an action's own
// configuration (its <configuration>, <global>, a <job-xml>,
// config-default.xml) sets it for that action, as Oozie's
// JavaActionExecutor reads it from the action configuration first.
var MaxOutputKey = action.DeclareSiteKey("oozie.action.max.output.data", strconv.Itoa(DefaultMaxOutput),
	"most bytes of output an action may capture (capture-output, the java action's output properties; more fails the action with JA018 \"Output data exceeds its limit\"); an action's configuration may set its own; at most 8388608")

// MaxOutputCap bounds oozie.action.max.output.data: before a step runs,
// its work directory reserves room for the outcome with up to six bytes
// per captured byte (JSON escaping), written out so that a full disk
// shows before anything runs. A larger value is lowered to the cap.
const MaxOutputCap = 8 << 20

// MaxOutputOf returns the capture limit of an action whose configuration
// is c (nil for none): c's oozie.action.max.output.data, else
// Options.MaxOutput, else the server's setting, else DefaultMaxOutput. A
// value that is not a positive integer is passed over, as Oozie passes
// over one that does not parse.
func (o Options) MaxOutputOf(c *conf.Config) int {
	if c != nil {
		if v, ok := c.Get(MaxOutputKey); ok {
			if n, ok := positive(v); ok {
				return min(n, MaxOutputCap)
			}
		}
	}
	if o.MaxOutput > 0 {
		return min(o.MaxOutput, MaxOutputCap)
	}
	if n, ok := positive(o.Setting(MaxOutputKey)); ok {
		return min(n, MaxOutputCap)
	}
	return DefaultMaxOutput
}

func positive(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n > 0
}
