#!/usr/bin/env bash
# A real cluster on this machine, no Docker: three Kafka brokers in KRaft mode (each a broker and
# a controller voter), three Cassandra nodes, and an Apicurio Registry that keeps its schemas in
# the Kafka cluster (kafkasql storage, so it survives a broker's death and its own restart). It
# reuses deploy/stack.sh's downloads (.stack/cache) and helpers; each node has its own data folder
# under .cluster/ and a small heap. See docs/stack.md, "Running on a cluster".
#
# usage: deploy/cluster.sh start|stop|kill|status|reset|logs|env [component...]
#   components: kafka1 kafka2 kafka3 cassandra1 cassandra2 cassandra3 registry | kafka | cassandra | all (default)
#   kill sends SIGKILL (what the chaos run does to a node); start brings a stopped node back.
#
# Addresses (all loopback): Kafka 127.0.0.1:29092-29094 (controllers 29192-29194); Cassandra
# 127.0.0.2-127.0.0.4, CQL 9042, storage 7000 (distinct addresses, as Cassandra nodes tell each
# other apart by address); registry 127.0.0.1:28081. `env` prints the service's settings for it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=deploy/stack.sh
. "$ROOT/deploy/stack.sh"
CL=${TDX_CLUSTER_DIR:-$ROOT/.cluster}
# the downloads of deploy/stack.sh (TDX_CLUSTER_CACHE: another checkout's .stack/cache)
CACHE=${TDX_CLUSTER_CACHE:-$CACHE}

CL_KAFKA_PORT=${TDX_CLUSTER_KAFKA_PORT:-29092}
CL_KAFKA_CONTROLLER_PORT=${TDX_CLUSTER_KAFKA_CONTROLLER_PORT:-29192}
CL_CASSANDRA_NET=${TDX_CLUSTER_CASSANDRA_NET:-127.0.0}
CL_CASSANDRA_FIRST=${TDX_CLUSTER_CASSANDRA_FIRST:-2}
CL_CASSANDRA_PORT=${TDX_CLUSTER_CASSANDRA_PORT:-9042}
CL_CASSANDRA_STORAGE_PORT=${TDX_CLUSTER_CASSANDRA_STORAGE_PORT:-7000}
CL_REGISTRY_PORT=${TDX_CLUSTER_REGISTRY_PORT:-28081}
CL_REGISTRY_MANAGEMENT_PORT=${TDX_CLUSTER_REGISTRY_MANAGEMENT_PORT:-28091}
CL_KAFKA_HEAP=${TDX_CLUSTER_KAFKA_HEAP:-256m}
CL_CASSANDRA_HEAP=${TDX_CLUSTER_CASSANDRA_HEAP:-512m}
CL_REGISTRY_HEAP=${TDX_CLUSTER_REGISTRY_HEAP:-256m}
CL_TIMEOUT=${TDX_CLUSTER_TIMEOUT:-300}

CL_ALL=(kafka1 kafka2 kafka3 cassandra1 cassandra2 cassandra3 registry)
# one token each, evenly spread over the Murmur3 ring
CL_TOKENS=(-9223372036854775808 -3074457345618258603 3074457345618258602)

clog() { printf '[cluster] %s\n' "$*" >&2; }
cdie() { printf '[cluster] error: %s\n' "$*" >&2; exit 1; }

node_no() { echo "${1: -1}"; }
kafka_port() { echo $((CL_KAFKA_PORT + $1 - 1)); }
kafka_controller_port() { echo $((CL_KAFKA_CONTROLLER_PORT + $1 - 1)); }
cassandra_host() { echo "$CL_CASSANDRA_NET.$((CL_CASSANDRA_FIRST + $1 - 1))"; }
brokers() { echo "127.0.0.1:$(kafka_port 1),127.0.0.1:$(kafka_port 2),127.0.0.1:$(kafka_port 3)"; }
contact_points() { echo "$(cassandra_host 1):$CL_CASSANDRA_PORT,$(cassandra_host 2):$CL_CASSANDRA_PORT,$(cassandra_host 3):$CL_CASSANDRA_PORT"; }

cl_dir() { echo "$CL/$1"; }
cl_pid_file() { echo "$CL/$1/pid"; }
cl_log() { echo "$CL/$1/logs/$1.out"; }

cl_marker() {
  case $1 in
    kafka*) echo "$CL/$1/conf/server.properties" ;;
    cassandra*) echo "$CL/$1/conf/cassandra.yaml" ;;
    registry) echo "-Dquarkus.http.port=$CL_REGISTRY_PORT" ;;
  esac
}

cl_running_pid() {
  local f pid
  f=$(cl_pid_file "$1")
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(cl_marker "$1")" || return 1
  echo "$pid"
}

cl_launch() { # cl_launch COMPONENT CMD...
  local c=$1; shift
  mkdir -p "$(cl_dir "$c")/logs"
  : >"$(cl_log "$c")"
  # fds 8 and 9 are the locks of this script and of stack.sh: a node must not hold them
  setsid nohup "$@" >>"$(cl_log "$c")" 2>&1 </dev/null 8>&- 9>&- &
  echo $! >"$(cl_pid_file "$c")"
}

cluster_id() {
  [ -s "$CL/kafka-cluster-id" ] || kafka_cluster_id >"$CL/kafka-cluster-id"
  cat "$CL/kafka-cluster-id"
}

start_kafka_node() {
  local java=$1 i=$2 c=kafka$2 d lib voters
  fetch_kafka
  d=$(cl_dir "$c"); lib=$CACHE/kafka-$KAFKA_VERSION/libs
  mkdir -p "$d/conf" "$d/data" "$d/logs"
  voters="1@127.0.0.1:$(kafka_controller_port 1),2@127.0.0.1:$(kafka_controller_port 2),3@127.0.0.1:$(kafka_controller_port 3)"
  cat >"$d/conf/server.properties" <<EOF
# written by deploy/cluster.sh
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(kafka_port "$i"),CONTROLLER://127.0.0.1:$(kafka_controller_port "$i")
advertised.listeners=PLAINTEXT://127.0.0.1:$(kafka_port "$i")
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$d/data
num.network.threads=2
num.io.threads=2
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
unclean.leader.election.enable=false
offsets.topic.replication.factor=3
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
transaction.state.log.num.partitions=4
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
delete.topic.enable=true
log.retention.hours=168
log.segment.bytes=67108864
log.retention.check.interval.ms=60000
replica.lag.time.max.ms=10000
EOF
  cp "$TPL/kafka-log4j.properties" "$d/conf/log4j.properties"
  local common=(-Djava.awt.headless=true -Dlog4j.configuration="file:$d/conf/log4j.properties" -Dkafka.logs.dir="$d/logs" -cp "$lib/*")
  if [ ! -f "$d/data/meta.properties" ]; then
    clog "formatting $c storage"
    "$java" -Xmx128m "${common[@]}" kafka.tools.StorageTool format -t "$(cluster_id)" -c "$d/conf/server.properties" --ignore-formatted \
      >"$d/logs/format.out" 2>&1 || { tail -n 40 "$d/logs/format.out" >&2; cdie "$c storage format failed"; }
  fi
  cl_launch "$c" "$java" "-Xms$CL_KAFKA_HEAP" "-Xmx$CL_KAFKA_HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:+ExplicitGCInvokesConcurrent -XX:MaxDirectMemorySize=128m -XX:TieredStopAtLevel=1 \
    "${common[@]}" kafka.Kafka "$d/conf/server.properties"
}

start_cassandra_node() {
  local java=$1 i=$2 c=cassandra$2 d lib jamm host seeds
  fetch_cassandra
  d=$(cl_dir "$c"); lib=$CACHE/cassandra-$CASSANDRA_VERSION/lib
  host=$(cassandra_host "$i")
  # every node a seed: none bootstraps (a fresh cluster has nothing to stream) and each finds the others
  seeds="$(cassandra_host 1):$CL_CASSANDRA_STORAGE_PORT,$(cassandra_host 2):$CL_CASSANDRA_STORAGE_PORT,$(cassandra_host 3):$CL_CASSANDRA_STORAGE_PORT"
  mkdir -p "$d/conf" "$d/logs" "$d/tmp" "$d"/data/{data,commitlog,saved_caches,hints,cdc_raw,system}
  sed -e "s#@STACK@#$d#g" -e "s#@CASSANDRA_PORT@#$CL_CASSANDRA_PORT#g" -e "s#@CASSANDRA_STORAGE_PORT@#$CL_CASSANDRA_STORAGE_PORT#g" \
    -e "s#^cluster_name: .*#cluster_name: 'tdx-cluster'#" \
    -e "s#^initial_token: .*#initial_token: ${CL_TOKENS[$((i - 1))]}#" \
    -e "s#^listen_address: .*#listen_address: $host#" -e "s#^rpc_address: .*#rpc_address: $host#" \
    -e "s#- seeds: .*#- seeds: \"$seeds\"#" \
    -e "s#^memtable_heap_space: .*#memtable_heap_space: 64MiB#" -e "s#^memtable_offheap_space: .*#memtable_offheap_space: 64MiB#" \
    -e "s#^endpoint_snitch: .*#endpoint_snitch: SimpleSnitch#" \
    "$TPL/cassandra.yaml" >"$d/conf/cassandra.yaml"
  # Unlike the single-node stack, no -Dcassandra.unsafesystem=true: with it a schema change (an
  # ALTER TABLE ... ADD of a migration) lives only in the commit log, and a node SIGKILLed after it
  # cannot replay its data mutations on restart ("Unknown column ... during deserialization").
  # hints let a restarted node catch up on the writes it missed
  printf '%s\n' 'hinted_handoff_enabled: true' 'max_hint_window: 3h' 'auto_bootstrap: false' >>"$d/conf/cassandra.yaml"
  cp "$TPL/cassandra-logback.xml" "$d/conf/logback.xml"
  jamm=$(ls "$lib"/jamm-*.jar 2>/dev/null | head -n1)
  [ -n "$jamm" ] || cdie "jamm jar missing from $lib"
  local flags=()
  mapfile -t flags < <(grep -E '^-' "$TPL/cassandra-jvm17.options")
  local slack=()
  mapfile -d '' -t slack < <(with_timer_slack "$CASSANDRA_TIMER_SLACK_NS")
  cl_launch "$c" "${slack[@]}" "$java" "-Xms$CL_CASSANDRA_HEAP" "-Xmx$CL_CASSANDRA_HEAP" -Xss512k -XX:MaxDirectMemorySize=256m \
    "${flags[@]}" -javaagent:"$jamm" \
    -Dcassandra.config="file://$d/conf/cassandra.yaml" \
    -Dlogback.configurationFile="$d/conf/logback.xml" \
    -Dcassandra.logdir="$d/logs" -Dcassandra.storagedir="$d/data" \
    -Dcassandra-foreground=yes \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    -Dcassandra.ring_delay_ms=1000 \
    -Dcassandra.consistent.rangemovement=false \
    -Djna.tmpdir="$d/tmp" -Djava.io.tmpdir="$d/tmp" \
    -cp "$d/conf:$lib/*" org.apache.cassandra.service.CassandraDaemon
}

start_registry_node() {
  local java d app
  fetch_registry
  java=$(find_java21)
  d=$(cl_dir registry); app=$CACHE/registry-$REGISTRY_VERSION/app
  mkdir -p "$d/logs" "$d/tmp"
  cl_launch registry "$java" -Xms64m "-Xmx$CL_REGISTRY_HEAP" -XX:+UseSerialGC -XX:MaxMetaspaceSize=192m \
    -XX:TieredStopAtLevel=1 -Djava.io.tmpdir="$d/tmp" \
    -Dquarkus.http.host=127.0.0.1 "-Dquarkus.http.port=$CL_REGISTRY_PORT" \
    -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$CL_REGISTRY_MANAGEMENT_PORT" \
    -Dquarkus.http.access-log.enabled=false \
    -Dapicurio.storage.kind=kafkasql \
    -Dapicurio.kafkasql.bootstrap.servers="$(brokers)" \
    -Dapicurio.kafkasql.topic=__tdx_registry_journal \
    -Dapicurio.kafkasql.snapshots.topic=__tdx_registry_snapshots \
    -Dapicurio.rest.deletion.group.enabled=true \
    -Dapicurio.rest.deletion.artifact.enabled=true \
    -Dapicurio.rest.deletion.artifact-version.enabled=true \
    -jar "$app/quarkus-run.jar"
}

cl_probe() { # cl_probe COMPONENT TIMEOUT PID
  local c=$1 args=("$TPL/probe.mjs")
  case $c in
    kafka*) args+=(kafka) ;;
    cassandra*) args+=(cassandra) ;;
    registry) args+=(registry) ;;
  esac
  args+=(--timeout "$2")
  [ -n "${3:-}" ] && args+=(--pid "$3")
  case $c in
    kafka*) (cd "$ROOT" && KAFKA_BROKERS="127.0.0.1:$(kafka_port "$(node_no "$c")")" PROBE_REPLICATION=1 node "${args[@]}") ;;
    cassandra*) (cd "$ROOT" && CASSANDRA_CONTACT_POINTS="$(cassandra_host "$(node_no "$c")"):$CL_CASSANDRA_PORT" node "${args[@]}") ;;
    registry) (cd "$ROOT" && REGISTRY_PORT=$CL_REGISTRY_PORT node "${args[@]}") ;;
  esac
}

write_cluster_env() {
  mkdir -p "$CL"
  cat >"$CL/env.tmp" <<EOF
KAFKA_BROKERS=$(brokers)
SCHEMA_REGISTRY_URL=http://127.0.0.1:$CL_REGISTRY_PORT/apis/ccompat/v7
CASSANDRA_CONTACT_POINTS=$(contact_points)
KAFKA_REPLICATION_FACTOR=3
KAFKA_MIN_INSYNC_REPLICAS=2
CASSANDRA_REPLICATION_FACTOR=3
CASSANDRA_CONSISTENCY=LOCAL_QUORUM
CASSANDRA_SERIAL_CONSISTENCY=SERIAL
EOF
  mv "$CL/env.tmp" "$CL/env"
}

# wait for the probes of COMPONENTS in parallel; print the log tail of a failed one
wait_ready() {
  local c pid waits=() failed=() dir w
  dir=$(mktemp -d)
  for c in "$@"; do
    pid=$(cl_running_pid "$c" || true)
    cl_probe "$c" "$CL_TIMEOUT" "$pid" >"$dir/$c.out" 2>&1 &
    waits+=("$!:$c")
  done
  for w in "${waits[@]}"; do
    c=${w#*:}
    if wait "${w%%:*}"; then
      clog "$c: $(tail -n1 "$dir/$c.out")"
    else
      failed+=("$c")
      cat "$dir/$c.out" >&2
      [ -f "$(cl_log "$c")" ] && { clog "---- last lines of $(cl_log "$c") ----"; tail -n 40 "$(cl_log "$c")" >&2; }
    fi
  done
  rm -rf "$dir"
  [ ${#failed[@]} -eq 0 ] || cdie "not ready: ${failed[*]}"
}

cmd_cluster_start() {
  local c pid java="" started=() t0=$SECONDS
  [ -d "$ROOT/node_modules/kafkajs" ] || cdie "node_modules is missing; run npm ci first"
  mkdir -p "$CL"
  exec 8>"$CL/.lock"
  flock 8
  for c in "$@"; do
    if pid=$(cl_running_pid "$c"); then
      clog "$c: already running (pid $pid)"; continue
    fi
    [ -n "$java" ] || [ "$c" = registry ] || java=$(find_java)
    clog "$c: starting"
    case $c in
      kafka*) start_kafka_node "$java" "$(node_no "$c")" ;;
      cassandra*) start_cassandra_node "$java" "$(node_no "$c")" ;;
      registry) ;; # after the brokers are up (its storage is a Kafka topic)
    esac
    started+=("$c")
  done
  write_cluster_env
  local first=() c2
  for c2 in "$@"; do [ "$c2" = registry ] || first+=("$c2"); done
  [ ${#first[@]} -eq 0 ] || wait_ready "${first[@]}"
  if [[ " $* " == *" registry "* ]]; then
    if ! cl_running_pid registry >/dev/null; then start_registry_node; fi
    wait_ready registry
  fi
  # a cluster-wide check: a topic replicated 3 times written with acks=all, every Cassandra node up
  if [[ " $* " == *" kafka1 "* && " $* " == *" kafka2 "* && " $* " == *" kafka3 "* ]]; then
    (cd "$ROOT" && KAFKA_BROKERS=$(brokers) PROBE_REPLICATION=3 node "$TPL/probe.mjs" kafka --timeout "$CL_TIMEOUT" | sed 's/^/[cluster] kafka cluster: /' >&2) || cdie "the Kafka cluster does not replicate"
  fi
  if [[ " $* " == *" cassandra1 "* && " $* " == *" cassandra2 "* && " $* " == *" cassandra3 "* ]]; then
    (cd "$ROOT" && CASSANDRA_CONTACT_POINTS=$(contact_points) PROBE_NODES=3 node "$TPL/probe.mjs" cassandra --timeout "$CL_TIMEOUT" | sed 's/^/[cluster] cassandra ring: /' >&2) || cdie "the Cassandra ring is not complete"
  fi
  clog "ready in $((SECONDS - t0)) s${started[*]:+ (started: ${started[*]})}; settings in $CL/env"
}

cl_stop_one() { # cl_stop_one COMPONENT SIGNAL
  local c=$1 sig=$2 pid i
  if ! pid=$(cl_running_pid "$c"); then rm -f "$(cl_pid_file "$c")"; clog "$c: not running"; return; fi
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then clog "$c: still running after 30 s, killing"; kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$(cl_pid_file "$c")"
  clog "$c: $( [ "$sig" = KILL ] && echo killed || echo stopped) (pid $pid)"
}

cmd_cluster_status() {
  local c pid rc=0
  for c in "$@"; do
    if pid=$(cl_running_pid "$c"); then
      printf '%-11s running  pid %-8s rss %s\n' "$c" "$pid" "$(rss_mb "$pid")"
    else
      printf '%-11s stopped\n' "$c"; rc=3
    fi
  done
  return $rc
}

cluster_usage() {
  echo "usage: deploy/cluster.sh start|stop|kill|status|reset|logs|env [${CL_ALL[*]}|kafka|cassandra|all]" >&2
  exit 2
}

cl_cmd=${1:-}; [ -n "$cl_cmd" ] || cluster_usage; shift
cl_comps=()
for a in "$@"; do
  case $a in
    all) cl_comps+=("${CL_ALL[@]}") ;;
    kafka) cl_comps+=(kafka1 kafka2 kafka3) ;;
    cassandra) cl_comps+=(cassandra1 cassandra2 cassandra3) ;;
    kafka[123] | cassandra[123] | registry) cl_comps+=("$a") ;;
    *) cluster_usage ;;
  esac
done
[ ${#cl_comps[@]} -gt 0 ] || cl_comps=("${CL_ALL[@]}")

case $cl_cmd in
  start) cmd_cluster_start "${cl_comps[@]}" ;;
  stop)
    mkdir -p "$CL"
    # the registry first (it writes to the brokers), then every node at once
    if [[ " ${cl_comps[*]} " == *" registry "* ]]; then cl_stop_one registry TERM; fi
    for c in "${cl_comps[@]}"; do [ "$c" = registry ] || cl_stop_one "$c" TERM & done
    wait ;;
  kill) for c in "${cl_comps[@]}"; do cl_stop_one "$c" KILL; done ;;
  status) cmd_cluster_status "${cl_comps[@]}" ;;
  reset)
    for c in "${cl_comps[@]}"; do cl_stop_one "$c" TERM & done
    wait
    for c in "${cl_comps[@]}"; do rm -rf "${CL:?}/$c"; clog "$c: data and logs removed"; done
    [ ${#cl_comps[@]} -eq ${#CL_ALL[@]} ] && rm -f "$CL/env" "$CL/kafka-cluster-id"
    true ;;
  logs) for c in "${cl_comps[@]}"; do [ -f "$(cl_log "$c")" ] && tail -n "${TDX_STACK_LOG_LINES:-100}" "$(cl_log "$c")"; done ;;
  env) write_cluster_env; cat "$CL/env" ;;
  *) cluster_usage ;;
esac
