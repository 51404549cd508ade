#!/usr/bin/env bash
# `npm run chaos:cluster`: starts the cluster of deploy/cluster.sh (3 KRaft brokers, 3 Cassandra
# nodes, a registry on them), runs test/chaos/cluster.test.ts against it (CHAOS_SETS, default
# 2000; CHAOS_SEED), stops the cluster again (CHAOS_CLUSTER_KEEP=1 leaves it running) and prints
# the run's line last: `cluster: kills <n>, lost <n>, duplicated <n>, unavailable_s <n>`.
# The SFTP server and the test set-up come from the single-node stack (test/integration/global-setup.ts).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/lib.sh
ensure_node
ensure_node_modules
export_stack_env
CL=${TDX_CLUSTER_DIR:-.cluster}
started=0
bash deploy/cluster.sh status >/dev/null 2>&1 || started=1
stop_cluster() {
  if [ "$started" = 1 ] && [ "${CHAOS_CLUSTER_KEEP:-0}" != 1 ]; then bash deploy/cluster.sh stop; fi
}
trap stop_cluster EXIT
bash deploy/cluster.sh start
rm -f "$CL/chaos-result"
status=0
CHAOS_CLUSTER=1 TEST_MODE=chaos npx vitest run test/chaos/cluster.test.ts || status=$?
if [ -f "$CL/chaos-result" ]; then tail -n 1 "$CL/chaos-result"; else echo "cluster: the run did not finish (see above)"; fi
exit $status
