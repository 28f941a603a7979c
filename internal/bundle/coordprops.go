package bundle

import (
	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/vocab"
)

// CoordProps is the configuration the coordinator c of bundle bundleID is
// submitted with (Oozie's BundleStartXCommand): the bundle's job
// configuration, overridden by the coordinator's <configuration>, then
// oozie.coord.application.path set to its app-path and oozie.bundle.id to
// the bundle. oozie.bundle.application.path is removed, which Oozie does
// not do: in gozie a submission names exactly one application path, and
// the coordinator submission must not be taken for a bundle's. A
// gozie.coord.materialize.from.<name> of the bundle's configuration
// becomes the gozie.coord.materialize.from of coordinator <name> (`gozie
// migrate` continues each coordinator of a bundle where it stood).
func CoordProps(jobConf *conf.Config, c Coordinator, bundleID string) *conf.Config {
	out := conf.New()
	if jobConf != nil {
		out = jobConf.Clone()
	}
	if c.Conf != nil {
		for _, p := range c.Conf.Properties() {
			out.Set(p.Name, p.Value)
		}
	}
	if v, ok := out.Get(vocab.PropCoordMaterializeFromPrefix + c.Name); ok {
		out.Set(vocab.PropCoordMaterializeFrom, v)
	}
	out.Set(PropCoordAppPath, c.AppPath)
	out.Delete(PropAppPath)
	out.Set(PropBundleID, bundleID)
	return out
}
