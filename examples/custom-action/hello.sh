#!/bin/sh
# hello.sh: the executable of the custom action type <hello>, an example of
# gozie's custom action contract (docs/actions.md, "Custom action types").
#
#   $1 and $GOZIE_ACTION_XML     the <hello> element, EL already resolved
#   $OOZIE_ACTION_CONF_XML       the action configuration (Hadoop XML)
#   $GOZIE_ACTION_OUTPUT_PROPERTIES
#                                a file for Java properties: wf:actionData
#   exit status                  0 -> ok transition, anything else -> error
#
# It runs in the action's working directory; what it prints stays in that
# directory's stdout and stderr files.
set -eu

element=$1
# One-line elements keep this example free of an XML parser; a real
# executor would use one (xmllint, python, ...).
greeting=$(sed -n 's:.*<greeting>\(.*\)</greeting>.*:\1:p' "$element")
times=$(sed -n 's:.*<times>\(.*\)</times>.*:\1:p' "$element")
queue=$(sed -n '/<name>mapred.job.queue.name<\/name>/{n;s:.*<value>\(.*\)</value>.*:\1:p;}' "$OOZIE_ACTION_CONF_XML")

if [ -z "$greeting" ]; then
    echo "hello: <greeting> is missing" >&2
    exit 2
fi

i=0
while [ "$i" -lt "${times:-1}" ]; do
    echo "$greeting"
    i=$((i + 1))
done

{
    echo "greeting=$greeting"
    echo "times=${times:-1}"
    echo "queue=$queue"
} > "$GOZIE_ACTION_OUTPUT_PROPERTIES"
