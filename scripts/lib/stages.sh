# The stage runner of scripts/test.sh (sourced, not run).
#
# A stage is one named command. Every stage belongs to a lane: the stages of a lane run one
# after another, in the order they were declared, and the lanes run side by side. A stage can
# wait for stages of other lanes (--after); it is skipped when one of them did not pass.
#
#   stage NAME --lane LANE [--after STAGE[,STAGE...]] [--own-build] -- COMMAND [ARGS...]
#   run_stages [--only NAME[,NAME...]] [--list]
#
# COMMAND is a program or a shell function of the script (it runs in a subshell with
# `set -euo pipefail` and STAGE_NAME set), with stdin from /dev/null and its output in
# $STAGE_LOGS/NAME.log.
# --own-build marks a stage that compiles for another profile or with instrumentation on purpose
# (cargo fuzz): STAGE_OWN_BUILD lists them, for scripts/compiled-once.py --ignore.
# `--only` takes stage or lane names and runs them with every stage they wait for.
#
# While the lanes run, one line per event (start, end, a heartbeat every minute); at the end a
# table of every stage: its lane, result, start and wall time, CPU time, and what target/ holds
# after it; then the log of every failed stage. run_stages returns non-zero if a stage failed
# or was skipped because one it waits for failed.

STAGE_LOGS="${STAGE_LOGS:-$PWD/target/test-logs}"
STAGE_HEARTBEAT_S="${STAGE_HEARTBEAT_S:-60}"
# Lines of a failed stage's log printed at the end (all of it when shorter).
STAGE_FAILED_LOG_LINES="${STAGE_FAILED_LOG_LINES:-300}"

declare -a STAGES=() LANES=() STAGE_OWN_BUILD=()
declare -A STAGE_LANE=() STAGE_AFTER=() STAGE_CMD=() STAGE_SELECTED=() LANE_PID=()

stage_fail() {
  printf 'stages: %s\n' "$*" >&2
  exit 2
}

# Registers a stage (see the header).
stage() {
  local name="${1:-}" lane="" after="" dep
  [ -n "$name" ] || stage_fail "stage: a name is needed"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --lane) lane="${2:-}"; shift 2 ;;
      --after) after="${2:-}"; shift 2 ;;
      --own-build) STAGE_OWN_BUILD+=("$name"); shift ;;
      --) shift; break ;;
      *) stage_fail "stage $name: unknown option $1 (options end with --)" ;;
    esac
  done
  [ -n "$lane" ] || stage_fail "stage $name: --lane is needed"
  [ $# -gt 0 ] || stage_fail "stage $name: no command after --"
  [ -z "${STAGE_LANE[$name]:-}" ] || stage_fail "stage $name is declared twice"
  for dep in ${after//,/ }; do
    # Declared before: the waits cannot form a cycle.
    [ -n "${STAGE_LANE[$dep]:-}" ] || stage_fail "stage $name waits for $dep, which is not declared before it"
  done
  STAGES+=("$name")
  STAGE_LANE[$name]="$lane"
  STAGE_AFTER[$name]="${after//,/ }"
  STAGE_CMD[$name]="$(printf '%q ' "$@")"
  case " ${LANES[*]} " in *" $lane "*) ;; *) LANES+=("$lane") ;; esac
}

# Marks stage NAME and every stage it waits for as selected.
stage_select() {
  local name="$1" dep
  [ -n "${STAGE_SELECTED[$name]:-}" ] && return 0
  STAGE_SELECTED[$name]=1
  for dep in ${STAGE_AFTER[$name]}; do stage_select "$dep"; done
}

# Selects NAME: a stage, or every stage of a lane.
stage_select_named() {
  local name="$1" s found=0
  for s in "${STAGES[@]}"; do
    if [ "$s" = "$name" ] || [ "${STAGE_LANE[$s]}" = "$name" ]; then
      found=1
      stage_select "$s"
    fi
  done
  [ "$found" = 1 ] || stage_fail "--only $name: no stage or lane of that name (scripts/test.sh --list)"
}

stage_list() {
  local s
  printf '%-22s %-10s %s\n' stage lane "waits for" "-----" "----" "---------"
  for s in "${STAGES[@]}"; do
    printf '%-22s %-10s %s\n' "$s" "${STAGE_LANE[$s]}" "${STAGE_AFTER[$s]:--}"
  done
}

stage_now_ms() { local t="${EPOCHREALTIME/./}"; printf '%s' "$((10#$t / 1000))"; }
stage_since() { printf '%4ds' "$((($(stage_now_ms) - STAGE_T0) / 1000))"; }
stage_disk_mb() { du -sm target 2>/dev/null | cut -f1 || true; }
# CPU seconds (user + system) of the finished children of this shell, from `times`, into the
# variable named $1 (not in a $(...) subshell: its `times` would count only its own children).
stage_cpu_s() {
  local file="$STAGE_LOGS/.times.$BASHPID"
  times >"$file"
  printf -v "$1" '%s' "$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t }' "$file")"
  rm -f "$file"
}

stage_say() { printf '[%s] %-22s %s\n' "$(stage_since)" "$1" "$2"; }

# Runs one stage in the current lane: waits for its stages, runs it, writes NAME.result:
#   RESULT START_MS WALL_MS CPU_S DISK_MB NOTE
stage_run() {
  local name="$1" dep result="" note="" rc=0 start end cpu0 cpu1 dep_result
  for dep in ${STAGE_AFTER[$name]}; do
    [ -n "${STAGE_SELECTED[$dep]:-}" ] || continue
    while [ ! -e "$STAGE_LOGS/$dep.result" ]; do sleep 0.5; done
    read -r dep_result _ <"$STAGE_LOGS/$dep.result"
    if [ "$dep_result" != ok ]; then
      result=skipped note="($dep: $dep_result)"
      break
    fi
  done
  start="$(stage_now_ms)"
  if [ -z "$result" ]; then
    stage_say "$name" "started"
    stage_cpu_s cpu0
    (
      set -euo pipefail
      export STAGE_NAME="$name"
      eval "${STAGE_CMD[$name]}"
    ) </dev/null >"$STAGE_LOGS/$name.log" 2>&1 &
    wait "$!" || rc=$?
    stage_cpu_s cpu1
    if [ "$rc" = 0 ]; then result=ok; else result=FAILED note="(exit $rc)"; fi
  else
    cpu0=0 cpu1=0
    : >"$STAGE_LOGS/$name.log"
  fi
  end="$(stage_now_ms)"
  local disk
  disk="$(stage_disk_mb)"
  printf '%s %s %s %s %s %s\n' "$result" "$((start - STAGE_T0))" "$((end - start))" \
    "$((cpu1 - cpu0))" "${disk:-0}" "$note" >"$STAGE_LOGS/$name.result.tmp"
  mv "$STAGE_LOGS/$name.result.tmp" "$STAGE_LOGS/$name.result"
  stage_say "$name" "$(printf '%-7s %5.0fs  target/ %s MB %s' "$result" "$(((end - start) / 1000))" "${disk:-0}" "$note")"
}

stage_lane() {
  local lane="$1" s
  for s in "${STAGES[@]}"; do
    [ "${STAGE_LANE[$s]}" = "$lane" ] && [ -n "${STAGE_SELECTED[$s]:-}" ] && stage_run "$s"
  done
  return 0
}

# Ends a process and everything under it (the lanes, on an interrupt).
stage_kill_tree() {
  local pid="$1" child
  for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do stage_kill_tree "$child"; done
  kill -TERM "$pid" 2>/dev/null || true
}

stage_interrupted() {
  local lane
  trap - INT TERM
  printf '\nstages: interrupted, stopping the lanes\n' >&2
  for lane in "${!LANE_PID[@]}"; do stage_kill_tree "${LANE_PID[$lane]}"; done
  exit 130
}

stage_summary() {
  local s result start wall cpu disk note failed=0 end_ms peak=0
  end_ms="$(stage_now_ms)"
  printf '\n%-22s %-10s %-8s %7s %7s %6s %11s  %s\n' stage lane result start wall cpu "target/ MB" ""
  for s in "${STAGES[@]}"; do
    [ -n "${STAGE_SELECTED[$s]:-}" ] || continue
    if [ -e "$STAGE_LOGS/$s.result" ]; then
      read -r result start wall cpu disk note <"$STAGE_LOGS/$s.result"
    else
      result="not run" start=0 wall=0 cpu=0 disk=0 note=""
    fi
    [ "$result" = ok ] || failed=$((failed + 1))
    [ "${disk:-0}" -gt "$peak" ] && peak="$disk"
    printf '%-22s %-10s %-8s %6ds %6ds %5ss %11s  %s\n' "$s" "${STAGE_LANE[$s]}" "$result" \
      "$((start / 1000))" "$((wall / 1000))" "$cpu" "$disk" "$note"
  done
  printf '%-22s %-10s %-8s %6s %6ds %6s %11s\n' total "" "" "" "$(((end_ms - STAGE_T0) / 1000))" "" \
    "$(stage_disk_mb)"
  printf 'target/ peak %s MB (after a stage), %s free; load average %s; logs in %s\n' "$peak" \
    "$(df -h --output=avail . | tail -n 1 | tr -d ' ')" "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" \
    "$STAGE_LOGS"
  for s in "${STAGES[@]}"; do
    [ -n "${STAGE_SELECTED[$s]:-}" ] && [ -e "$STAGE_LOGS/$s.result" ] || continue
    read -r result _ <"$STAGE_LOGS/$s.result"
    [ "$result" = FAILED ] || continue
    local log="$STAGE_LOGS/$s.log" lines
    lines="$(wc -l <"$log")"
    if [ "$lines" -le "$STAGE_FAILED_LOG_LINES" ]; then
      printf '\n===== %s FAILED: its log (%s) =====\n' "$s" "$log"
      cat "$log"
    else
      printf '\n===== %s FAILED: the last %s of %s lines of %s =====\n' "$s" "$STAGE_FAILED_LOG_LINES" "$lines" "$log"
      tail -n "$STAGE_FAILED_LOG_LINES" "$log"
    fi
    printf '===== end of %s =====\n' "$s"
  done
  [ "$failed" = 0 ]
}

# Runs the declared stages (see the header); returns non-zero if one did not pass.
run_stages() {
  local only="" list=0 name lane running last_beat=0 s
  while [ $# -gt 0 ]; do
    case "$1" in
      --only) only="${2:-}"; shift 2 ;;
      --only=*) only="${1#--only=}"; shift ;;
      --list) list=1; shift ;;
      -h | --help) sed -n '2,/^set -/p' "$0" | sed -n 's/^# \{0,1\}//p'; return 0 ;;
      *) stage_fail "unknown argument $1 (--only NAME[,NAME...], --list)" ;;
    esac
  done
  if [ "$list" = 1 ]; then stage_list; return 0; fi
  if [ -n "$only" ]; then
    for name in ${only//,/ }; do stage_select_named "$name"; done
  else
    for s in "${STAGES[@]}"; do STAGE_SELECTED[$s]=1; done
  fi
  rm -rf "$STAGE_LOGS"
  mkdir -p "$STAGE_LOGS"
  STAGE_T0="$(stage_now_ms)"
  trap stage_interrupted INT TERM
  for lane in "${LANES[@]}"; do
    for s in "${STAGES[@]}"; do
      if [ "${STAGE_LANE[$s]}" = "$lane" ] && [ -n "${STAGE_SELECTED[$s]:-}" ]; then
        stage_lane "$lane" &
        LANE_PID[$lane]=$!
        break
      fi
    done
  done
  while :; do
    running=()
    for lane in "${!LANE_PID[@]}"; do
      kill -0 "${LANE_PID[$lane]}" 2>/dev/null && running+=("$lane")
    done
    [ "${#running[@]}" -gt 0 ] || break
    if [ "$(($(stage_now_ms) - last_beat))" -ge "$((STAGE_HEARTBEAT_S * 1000))" ]; then
      [ "$last_beat" = 0 ] || stage_say "…" "lanes running: ${running[*]}; target/ $(stage_disk_mb) MB; load $(cut -d' ' -f1 /proc/loadavg)"
      last_beat="$(stage_now_ms)"
    fi
    sleep 1
  done
  # The results are in the .result files; this only reaps the lanes.
  for lane in "${!LANE_PID[@]}"; do wait "${LANE_PID[$lane]}" 2>/dev/null || true; done
  trap - INT TERM
  stage_summary
}
