#!/bin/sh
# local-sshd.sh: a private OpenSSH server on 127.0.0.1 for trying the ssh
# example on one machine (and for CI). It never touches ~/.ssh or the
# system's sshd: keys, configuration and the sessions' home directory all
# live in $GOZIE_SSH_EXAMPLE_DIR (default /tmp/gozie-ssh-example-$USER).
#
#   eval "$(examples/apps/ssh/local-sshd.sh start)"   # exports GOZIE_SSH_CONFIG_FILE
#   go run ./cmd/gozie run -config examples/apps/ssh/job.properties
#   examples/apps/ssh/local-sshd.sh stop
#
# GOZIE_SSH_CONFIG_FILE is the server key gozie.ssh.config.file: gozie's
# ssh action runs `ssh -F <that file>`, which defines the host alias
# gozie-ssh-example used by job.properties. With a real host, skip all this:
# put the host in job.properties and let ~/.ssh/config, known_hosts and
# your keys do what they do for `ssh user@host`.
#
# Needs /usr/sbin/sshd (Debian/Ubuntu: apt-get install -y openssh-server)
# and ssh-keygen.
set -eu
user=$(id -un)
dir=${GOZIE_SSH_EXAMPLE_DIR:-/tmp/gozie-ssh-example-$user}
sshd=${SSHD:-/usr/sbin/sshd}

stop() {
	if [ -f "$dir/sshd.pid" ]; then
		kill "$(cat "$dir/sshd.pid")" 2>/dev/null || true
		rm -f "$dir/sshd.pid"
	fi
}

case "${1:-}" in
start)
	[ -x "$sshd" ] || { echo "local-sshd.sh: $sshd not found; install openssh-server" >&2; exit 1; }
	stop
	mkdir -p "$dir/home"
	chmod 700 "$dir"
	for k in host_key client_key; do
		[ -f "$dir/$k" ] || ssh-keygen -q -t ed25519 -N "" -C gozie-ssh-example -f "$dir/$k"
	done
	cp "$dir/client_key.pub" "$dir/authorized_keys"
	# sshd running as root wants its privilege separation directory.
	[ "$(id -u)" != 0 ] || mkdir -p /run/sshd
	port=${GOZIE_SSH_EXAMPLE_PORT:-22022}
	tries=0
	while :; do
		cat >"$dir/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
SetEnv HOME=$dir/home
CFG
		cat >"$dir/ssh_config" <<CFG
Host gozie-ssh-example
  HostName 127.0.0.1
  Port $port
  IdentityFile $dir/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  StrictHostKeyChecking yes
CFG
		echo "[127.0.0.1]:$port $(cat "$dir/host_key.pub")" >"$dir/known_hosts"
		rm -f "$dir/sshd.pid"
		"$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log" || true
		i=0
		while [ $i -lt 50 ]; do
			if ssh -F "$dir/ssh_config" -o BatchMode=yes -o ConnectTimeout=2 "$user@gozie-ssh-example" true </dev/null 2>/dev/null; then
				echo "export GOZIE_SSH_CONFIG_FILE='$dir/ssh_config'"
				echo "local-sshd.sh: sshd on 127.0.0.1:$port, host alias gozie-ssh-example" >&2
				exit 0
			fi
			sleep 0.1 2>/dev/null || sleep 1
			i=$((i + 1))
		done
		stop
		tries=$((tries + 1))
		[ $tries -lt 10 ] || { echo "local-sshd.sh: sshd did not start; see $dir/sshd.log" >&2; exit 1; }
		port=$((port + 1))
	done
	;;
stop)
	stop
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
