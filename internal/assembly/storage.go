package assembly

import (
	"fmt"
	"os"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/server"
)

// loadHadoopConf reads the store settings of a Hadoop configuration
// directory (core-site.xml, hdfs-site.xml); set by the HDFS backend's
// loader when it is linked in.
var loadHadoopConf = func(dir string) (fsys.MapConfig, error) { return fsys.MapConfig{}, nil }

// StorageNamespace builds the namespace every path of the system goes
// through: the site configuration's keys over those of the Hadoop
// configuration directory (gozie.hadoop.conf.dir, else $HADOOP_CONF_DIR),
// and the mount table of the gozie.fs.mount.* keys.
func StorageNamespace(cfg server.Config) (*fsys.Namespace, error) {
	dir := cfg["gozie.hadoop.conf.dir"]
	if dir == "" {
		dir = os.Getenv("HADOOP_CONF_DIR")
	}
	settings := fsys.MapConfig{}
	if dir != "" {
		h, err := loadHadoopConf(dir)
		if err != nil {
			return nil, fmt.Errorf("gozie.hadoop.conf.dir [%s]: %w", dir, err)
		}
		settings = h
	}
	for k, v := range cfg {
		settings[k] = v
	}
	ns, err := fsys.NewNamespace(settings, fsys.MountsFromConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("mount table: %w", err)
	}
	return ns, nil
}
