package assembly

import (
	"fmt"
	"os"

	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/fsys/hdfs"
	"github.com/gozie/gozie/internal/server"
)

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
		h, err := hdfs.LoadConfDir(dir)
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
