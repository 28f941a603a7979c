package conf_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/gozie/gozie/internal/conf"
)

// Layering a job the way Oozie does: config-default.xml supplies defaults,
// job.properties and -D definitions override, and references are expanded
// when a value is read.
func Example() {
	defaults, err := conf.ParseXML(strings.NewReader(`<configuration>
  <property><name>queueName</name><value>default</value></property>
  <property><name>outputDir</name><value>${nameNode}/user/${user.name}/out</value></property>
</configuration>`), "config-default.xml")
	if err != nil {
		fmt.Println(err)
		return
	}
	job, err := conf.ParseProperties(strings.NewReader(`
# job.properties
nameNode=hdfs://nn:8020
queueName = etl
`), "job.properties")
	if err != nil {
		fmt.Println(err)
		return
	}
	name, value, _ := conf.ParseDefine("queueName=adhoc")
	job.Set(name, value)

	job.MergeDefaults(defaults)
	job.SetResolver(conf.MapResolver(map[string]string{"user.name": "alice"}))

	out, _ := job.Get("outputDir")
	raw, _ := job.Raw("outputDir")
	queue, _ := job.Get("queueName")
	fmt.Println(out)
	fmt.Println(raw)
	fmt.Println(queue)
	// Output:
	// hdfs://nn:8020/user/alice/out
	// ${nameNode}/user/${user.name}/out
	// adhoc
}

func ExampleConfig_WriteXML() {
	c := conf.New()
	c.Set("mapred.job.queue.name", "${queueName}")
	c.SetProperty(conf.Property{Name: "fs.defaultFS", Value: "hdfs://nn:8020", Final: true})
	c.WriteXML(os.Stdout)
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <configuration>
	//   <property>
	//     <name>mapred.job.queue.name</name>
	//     <value>${queueName}</value>
	//   </property>
	//   <property>
	//     <name>fs.defaultFS</name>
	//     <value>hdfs://nn:8020</value>
	//     <final>true</final>
	//   </property>
	// </configuration>
}

func ExampleParseXML_error() {
	_, err := conf.ParseXML(strings.NewReader("<configuration>\n  <property>\n    <value>x</value>\n  </property>\n</configuration>\n"), "config-default.xml")
	fmt.Println(err)
	// Output:
	// config-default.xml:2: property without <name>
}
