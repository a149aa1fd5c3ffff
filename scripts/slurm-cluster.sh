#!/usr/bin/env bash
# Starts and stops a real single-node Slurm cluster on this machine, for the batch
# test's `sbatch --array` jobs. Everything lives in a state folder the caller gives
# (a fresh temporary folder): the munge key and socket, slurm.conf, the daemons'
# state, spool, pid and log files. /etc/slurm and /etc/munge are not read, nothing
# outside the folder is written, no system service is started, and it needs no
# systemd and no cgroups (proctrack/linuxproc, task/none, jobacct_gather/none).
#
#   bash scripts/slurm-cluster.sh start DIR   starts munged, slurmctld and slurmd and
#                                             waits (60 s at most) for the node to be
#                                             idle; prints the one line
#                                             SLURM_CONF=DIR/slurm.conf
#   bash scripts/slurm-cluster.sh stop DIR    cancels the cluster's jobs and ends its
#                                             daemons (SIGTERM, SIGKILL after 5 s);
#                                             does nothing when none runs
#
# The test starts a cluster in a temporary folder, submits with that SLURM_CONF in
# the environment (SLURM_CONF=DIR/slurm.conf sbatch --wait --array=… --wrap …) and
# always stops it again, also when the test fails. Needs root (jobs run as root,
# SlurmUser=root) and the Debian packages slurm-wlm and munge
# (bash scripts/install-deps.sh --test). One cluster at a time is what it is made
# for; the ports are chosen free, so a cluster left behind by a killed run does not
# stop a new one (and stop with that run's folder ends it).
set -euo pipefail

fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The daemons this script started, one "name pid" a line.
pids_file() { printf '%s/daemons.pids' "$1"; }

# Whether pid is a live (not zombie) process named name that was started with this
# state folder on its command line: a pid file left by a killed run can name a
# pid that is now someone else's.
ours() {
  local name="$1" pid="$2" dir="$3" state
  [ -r "/proc/$pid/stat" ] || return 1
  state="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
  [ -n "$state" ] && [ "$state" != Z ] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || return 1
  { tr '\0' '\n' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$dir/"
}

# Live pids of the processes in the sessions of the given session leaders (each
# daemon is started as its own session leader with setsid, so this is it and what
# it forked and did not move to a session of its own: slurmd's slurmstepds).
session_members() {
  local sids=" $* "
  ps -eo pid=,sid=,stat= | while read -r pid sid stat; do
    case "$sids" in *" $sid "*) [[ "$stat" == Z* ]] || echo "$pid" ;; esac
  done
}

alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }

# Waits up to 5 s for the given pids to be dead; prints those that are not.
wait_dead() {
  local i p left=()
  for ((i = 0; i < 50; i++)); do
    left=()
    for p in "$@"; do alive "$p" && left+=("$p"); done
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  echo "${left[*]}"
}

stop() {
  local dir="$1" file name pid sessions=() victims=() left ctld=0 p i
  file="$(pids_file "$dir")"
  [ -f "$file" ] || return 0
  while read -r name pid; do
    if ours "$name" "$pid" "$dir"; then
      sessions+=("$pid")
      [ "$name" != slurmctld ] || ctld=1
    fi
  done <"$file"
  # The jobs first, while slurmctld still runs: slurmd's slurmstepds end them.
  if [ "$ctld" = 1 ]; then
    SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --full --quiet --user=root >/dev/null 2>&1 || true
    for ((i = 0; i < 20; i++)); do
      [ -z "$(SLURM_CONF="$dir/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.25
    done
  fi
  # Then every process in the daemons' sessions, and in those of the cluster's
  # slurmstepds, if any are left (each job's slurmstepd starts a session, which its
  # tasks share; it has slurmd's environment, so this cluster's SLURM_CONF).
  for p in $(pgrep -x slurmstepd || true); do
    if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$dir/slurm.conf"; then
      sessions+=("$(ps -o sid= -p "$p" | tr -d ' ')")
    fi
  done
  [ ${#sessions[@]} -eq 0 ] || mapfile -t victims < <(session_members "${sessions[@]}")
  if [ ${#victims[@]} -gt 0 ]; then
    kill -TERM "${victims[@]}" 2>/dev/null || true
    left="$(wait_dead "${victims[@]}")"
    if [ -n "$left" ]; then
      echo "slurm-cluster: SIGKILL to $left (still there 5 s after SIGTERM)" >&2
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      left="$(wait_dead $left)"
      [ -z "$left" ] || fail "processes $left outlived SIGKILL"
    fi
    # Dead now. Their parent is init, and an init that reaps late (this VM's
    # process_api does within about 2 s) shows them as zombies in ps until it does:
    # up to 5 s for that, so that the process table is clean when stop returns.
    for ((i = 0; i < 50; i++)); do
      left=""
      for p in "${victims[@]}"; do [ ! -e "/proc/$p" ] || left+=" $p"; done
      [ -z "$left" ] && break
      sleep 0.1
    done
  fi
  rm -f "$file"
}

# The tail of a log, indented, for an error message; a slurm daemon's log file, or
# its stderr when it stopped before it opened its log file.
log_tail() {
  local log="$1"
  [ -s "$log" ] || [ ! -s "${log%.log}.out" ] || log="${log%.log}.out"
  if [ -s "$log" ]; then echo "--- tail of $log:"; tail -n 25 "$log" | sed 's/^/    /'; else echo "--- nothing in $log"; fi
}

# Fails the start: the message and a log's tail on stderr, and whatever started stopped.
start_failed() {
  local dir="$1" message="$2" log="$3"
  { printf 'error: %s\n' "$message"; log_tail "$log"; } >&2
  stop "$dir" || true
  exit 1
}

# Two free TCP ports in a row (slurmctld's, slurmd's), from 16817 on: none listens
# on them now, so a cluster left behind by a killed run does not get in the way.
free_ports() {
  local listening port
  listening="$(ss -ltnH | awk '{ n = split($4, a, ":"); print a[n] }' | sort -u)"
  for ((port = 16817; port < 17817; port += 2)); do
    if ! grep -qx "$port" <<<"$listening" && ! grep -qx "$((port + 1))" <<<"$listening"; then
      echo "$port $((port + 1))"
      return 0
    fi
  done
  return 1
}

# Starts a daemon in the background as a session leader of its own, its output in
# its log and no stdin (so the caller's pipes close when this script ends), and
# records its pid.
launch() {
  local dir="$1" name="$2" log="$3"
  shift 3
  setsid "$@" </dev/null >>"$log" 2>&1 &
  echo "$name $!" >>"$(pids_file "$dir")"
}

start() {
  local dir="$1" host ports ctld_port slurmd_port node name pid state log p deadline
  for p in munged munge unmunge slurmctld slurmd sinfo ss setsid; do
    command -v "$p" >/dev/null || fail "$p is missing; bash scripts/install-deps.sh --test installs slurm-wlm and munge"
  done
  [ "$(id -u)" -eq 0 ] || fail "needs root (the daemons run as root, SlurmUser=root)"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd -P)"
  # A Unix socket's path has 107 bytes at most.
  [ ${#dir} -le 90 ] || fail "the state folder's path is too long for munge's socket in it: $dir"
  if [ -f "$(pids_file "$dir")" ]; then
    while read -r name pid; do
      ! ours "$name" "$pid" "$dir" || fail "a cluster already runs in $dir ($name, pid $pid); stop it first"
    done <"$(pids_file "$dir")"
    rm -f "$(pids_file "$dir")"
  fi
  rm -rf "$dir/slurmctld" "$dir/slurmd" "$dir/munge.key" "$dir"/*.log "$dir"/*.out "$dir"/*.pid
  # Interrupted while starting (the test timed out): what started so far stops.
  trap 'stop "$dir"; exit 130' INT TERM HUP
  mkdir -p "$dir/slurmctld" "$dir/slurmd"

  # munge: its own key and socket in DIR. munged runs as root here, so the key is
  # root's (munged wants the key owned by the user it runs as, mode 0400).
  # --force: munged insists every folder above its socket be searchable by all (for
  # clients that are not root); DIR is a private temporary folder and all the
  # clients are root's, so that is a warning, not a reason to stop.
  dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge.key"
  launch "$dir" munged "$dir/munged.log" munged --foreground --force \
    --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
    --seed-file="$dir/munged.seed" --log-file="$dir/munged.log"
  deadline=$((SECONDS + 10))
  until munge -n -S "$dir/munge.socket" 2>/dev/null | unmunge -S "$dir/munge.socket" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || start_failed "$dir" "munged did not answer on $dir/munge.socket within 10 s" "$dir/munged.log"
    sleep 0.1
  done

  # slurm.conf: this machine as its one node, as slurmd -C sees it.
  host="$(hostname -s)"
  node="$(slurmd -C | sed -n 's/^NodeName=[^ ]* //p')"
  [ -n "$node" ] || start_failed "$dir" "slurmd -C did not describe this machine" /dev/null
  ports="$(free_ports)" || start_failed "$dir" "no two free TCP ports in a row in 16817-17816" /dev/null
  read -r ctld_port slurmd_port <<<"$ports"
  : >"$dir/plugstack.conf"   # no SPANK plugins (and not /etc/slurm/plugstack.conf's)
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm-cluster.sh: a single-node cluster for the test suite.
ClusterName=mercurialtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/slurmctld
SlurmdSpoolDir=$dir/slurmd
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
# No cgroups, no accounting: linuxproc finds a job's processes by their parents.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobContainerType=job_container/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# A job's end lets the next array tasks start at once, not 3 s later.
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=10
MessageTimeout=5
InactiveLimit=0
KillWait=2
Waittime=0
# sbatch --wait polls after 2 s, then 8 s, then 32 s unless MinJobAge / 2 is at most
# 2 (a finished job's record lasts MinJobAge seconds at least): 5 keeps it at 2 s.
MinJobAge=5
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host $node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

  export SLURM_CONF="$dir/slurm.conf"
  # In the foreground (-D) they log to stderr as well as to their log files: what
  # comes before the log file opens (a bad slurm.conf) is in NAME.out.
  launch "$dir" slurmctld "$dir/slurmctld.out" slurmctld -D -f "$dir/slurm.conf"
  launch "$dir" slurmd "$dir/slurmd.out" slurmd -D -f "$dir/slurm.conf" -N "$host"

  # Ready when sinfo shows the node idle; every 0.5 s, 60 s at most.
  deadline=$((SECONDS + 60))
  while :; do
    state="$(timeout 5 sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n 1)" || state=""
    [ "$state" = idle ] && break
    while read -r name pid; do
      ours "$name" "$pid" "$dir" || start_failed "$dir" "$name exited while the cluster started" "$dir/$name.log"
    done <"$(pids_file "$dir")"
    if [ "$SECONDS" -ge "$deadline" ]; then
      log="$dir/slurmd.log"
      [ -n "$state" ] || log="$dir/slurmctld.log"
      start_failed "$dir" "node $host not idle within 60 s (sinfo: '${state:-no answer}')" "$log"
    fi
    sleep 0.5
  done
  trap - INT TERM HUP
  echo "SLURM_CONF=$dir/slurm.conf"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || fail "usage: $0 start DIR"; start "$2" ;;
  stop)  [ $# -eq 2 ] || fail "usage: $0 stop DIR"; [ -d "$2" ] || exit 0; stop "$(cd "$2" && pwd -P)" ;;
  *)     fail "usage: $0 start DIR | stop DIR" ;;
esac
