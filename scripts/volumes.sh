#!/usr/bin/env bash
# Test volumes for storage sweeps and remote-volume tests (root): a bandwidth-throttled loop-device
# ext4 volume (cgroup-v1 blkio throttle) and an sshfs mount of a local directory over 127.0.0.1
# served by a private sshd. Idempotent; every piece that the kernel or machine refuses is SKIPPED
# with a message naming what is missing, and the rest still works.
#
#   scripts/volumes.sh setup [loop|sshfs|all]     create (or keep) the volumes
#   scripts/volumes.sh teardown                   unmount, detach, stop our sshd, remove everything
#   scripts/volumes.sh status                     what exists; also machine-readable KEY=VALUE lines
#   scripts/volumes.sh throttle READ_MBPS WRITE_MBPS   change the loop volume's limits (0 = none)
#   scripts/volumes.sh exec -- CMD [ARGS...]      run CMD inside the throttle cgroup
#   ES_CGROUP_NAME=edgestream-throttled-X scripts/volumes.sh throttle|exec|remove-group ...
#                                                 a private throttle group on the same volume
#
# The throttle applies only to I/O issued by processes in the cgroup (and, with cgroup v1, only to
# direct I/O and reads: buffered writes are flushed later by kernel threads outside the cgroup), so
# run the workload with `exec` (it writes its own pid to cgroup.procs, then execs CMD; children
# inherit the cgroup). Without this script: echo $$ > /sys/fs/cgroup/blkio/edgestream-throttled/cgroup.procs
#
# Environment (defaults): ES_VOL_ROOT=/work/vol, ES_LOOP_SIZE=6G (sparse image file),
# ES_THROTTLE_PROFILE=hdd (hdd = 150/150 MB/s, cloud = 60/60 MB/s, issue4 = 100/50 MB/s, none),
# ES_READ_MBPS / ES_WRITE_MBPS override the profile (setup keeps the limits an existing group has
# unless one of these three is set), ES_SSH_PORT=2222.
# MB = 10^6 bytes here, as in fio's and dd's MB/s.
#
# Our sshd runs with its own config, host key, authorized key and pid file under $ES_VOL_ROOT/ssh,
# listening on 127.0.0.1 only; the machine's /etc/ssh configuration and any running sshd are left
# untouched (the openssh-server package is installed only when missing, for its binary).
set -euo pipefail

ROOT="${ES_VOL_ROOT:-/work/vol}"
IMG="$ROOT/loop.img"
LOOP_MNT="$ROOT/throttled"
LOOP_DEV_FILE="$ROOT/loop.dev"
# ES_CGROUP_NAME picks another throttle group on the same loop volume (tests use a private one so
# that they do not change the limits of a sweep running at the same time).
CGROUP_NAME="${ES_CGROUP_NAME:-edgestream-throttled}"
BLKIO="/sys/fs/cgroup/blkio"
CGROUP="$BLKIO/$CGROUP_NAME"
SSH_DIR="$ROOT/ssh"
EXPORT="$ROOT/sshfs-export"
SSHFS_MNT="$ROOT/sshfs"
PORT="${ES_SSH_PORT:-2222}"

say() { echo "volumes: $*" >&2; }
skip() { echo "SKIP: $*" >&2; }

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    skip "volumes.sh $1 needs root (loop devices, mounts, cgroups)"
    exit 77
  fi
}

profile_rates() {
  local r w
  case "${ES_THROTTLE_PROFILE:-hdd}" in
    hdd) r=150 w=150 ;;
    cloud) r=60 w=60 ;;
    issue4) r=100 w=50 ;;
    none) r=0 w=0 ;;
    *) say "unknown ES_THROTTLE_PROFILE=${ES_THROTTLE_PROFILE} (hdd, cloud, issue4, none)"; exit 2 ;;
  esac
  echo "${ES_READ_MBPS:-$r} ${ES_WRITE_MBPS:-$w}"
}

is_mounted() { mountpoint -q "$1" 2>/dev/null; }

loop_device() {
  # The loop device backing our image, if attached.
  [ -f "$LOOP_DEV_FILE" ] || return 1
  local dev
  dev=$(cat "$LOOP_DEV_FILE")
  losetup "$dev" 2>/dev/null | grep -q "$IMG" || return 1
  echo "$dev"
}

apply_throttle() {  # apply_throttle DEV READ_MBPS WRITE_MBPS
  local dev=$1 r=$2 w=$3 majmin
  if [ ! -f "$BLKIO/blkio.throttle.read_bps_device" ]; then
    skip "no cgroup-v1 blkio throttle controller at $BLKIO (the loop volume stays unthrottled)"
    return 0
  fi
  mkdir -p "$CGROUP"
  majmin=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
  # Writing 0 removes a limit; write both every time so the file reflects the requested rates.
  echo "$majmin $((r * 1000000))" >"$CGROUP/blkio.throttle.read_bps_device"
  echo "$majmin $((w * 1000000))" >"$CGROUP/blkio.throttle.write_bps_device"
  echo "$r $w" >"$ROOT/throttle.rates.$CGROUP_NAME"
  say "throttle on $dev ($majmin): read ${r} MB/s, write ${w} MB/s (0 = unlimited) for processes in $CGROUP"
}

setup_loop() {
  if [ ! -e /dev/loop-control ] || ! command -v losetup >/dev/null; then
    skip "no loop device support (/dev/loop-control or losetup missing): no throttled volume"
    return 0
  fi
  mkdir -p "$ROOT" "$LOOP_MNT"
  local dev
  if ! dev=$(loop_device); then
    if [ ! -f "$IMG" ]; then
      truncate -s "${ES_LOOP_SIZE:-6G}" "$IMG"
      mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$IMG"
    fi
    # --direct-io=on: the loop driver reads its backing file with O_DIRECT, so the host's page cache
    # does not hold a second copy that would make the volume look faster than its throttle.
    if ! dev=$(losetup --find --show --direct-io=on "$IMG" 2>/dev/null) &&
       ! dev=$(losetup --find --show "$IMG" 2>/dev/null); then
      skip "the kernel refused a loop device for $IMG (losetup failed): no throttled volume"
      return 0
    fi
    echo "$dev" >"$LOOP_DEV_FILE"
  fi
  if ! is_mounted "$LOOP_MNT"; then
    if ! mount -o noatime "$dev" "$LOOP_MNT"; then
      skip "mounting $dev on $LOOP_MNT failed"
      return 0
    fi
  fi
  chmod 1777 "$LOOP_MNT"
  # A group set up before keeps its limits (`throttle` changed them, or a sweep runs under them)
  # unless a profile or rate is asked for: `setup all` from the tests once reset 250 to 150 MB/s.
  local rates_file="$ROOT/throttle.rates.$CGROUP_NAME"
  if [ -z "${ES_THROTTLE_PROFILE:-}${ES_READ_MBPS:-}${ES_WRITE_MBPS:-}" ] && [ -d "$CGROUP" ] && [ -s "$rates_file" ]; then
    read -r r w <"$rates_file"
  else
    read -r r w < <(profile_rates)
  fi
  apply_throttle "$dev" "$r" "$w"
  say "loop volume: $LOOP_MNT on $dev (image $IMG)"
}

install_ssh_packages() {
  local missing=()
  command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
  command -v sshfs >/dev/null || missing+=(sshfs)
  command -v ssh-keygen >/dev/null || missing+=(openssh-client)
  if ((${#missing[@]})); then
    say "installing ${missing[*]} (for the loopback sshfs volume)"
    # policy-rc.d 101: the package must not start or restart the machine's own sshd service.
    local policy=/usr/sbin/policy-rc.d created_policy=0
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" || true
    [ "$created_policy" = 1 ] && rm -f "$policy"
  fi
}

sshd_running() {
  [ -f "$SSH_DIR/sshd.pid" ] && kill -0 "$(cat "$SSH_DIR/sshd.pid")" 2>/dev/null
}

setup_sshfs() {
  if [ ! -e /dev/fuse ]; then
    skip "no /dev/fuse (FUSE unavailable): no sshfs volume"
    return 0
  fi
  install_ssh_packages
  local sshd_bin
  sshd_bin=$(command -v sshd || echo /usr/sbin/sshd)
  if [ ! -x "$sshd_bin" ] || ! command -v sshfs >/dev/null; then
    skip "sshd or sshfs not installed (apt-get install openssh-server sshfs failed?): no sshfs volume"
    return 0
  fi
  mkdir -p "$SSH_DIR" "$EXPORT" "$SSHFS_MNT" /run/sshd
  chmod 700 "$SSH_DIR"
  chmod 1777 "$EXPORT"
  [ -f "$SSH_DIR/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/host_key"
  [ -f "$SSH_DIR/client_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/client_key"
  cp "$SSH_DIR/client_key.pub" "$SSH_DIR/authorized_keys"
  cat >"$SSH_DIR/sshd_config" <<EOF
# Private sshd for EdgeStream's loopback sshfs test volume (scripts/volumes.sh); not the system's.
Port $PORT
ListenAddress 127.0.0.1
HostKey $SSH_DIR/host_key
PidFile $SSH_DIR/sshd.pid
AuthorizedKeysFile $SSH_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
Subsystem sftp internal-sftp
EOF
  if ! sshd_running; then
    if ! "$sshd_bin" -f "$SSH_DIR/sshd_config" -E "$SSH_DIR/sshd.log"; then
      skip "our sshd did not start on 127.0.0.1:$PORT (see $SSH_DIR/sshd.log; port taken? set ES_SSH_PORT)"
      return 0
    fi
    for _ in 1 2 3 4 5 6 7 8 9 10; do sshd_running && break; sleep 0.2; done
  fi
  local attempt
  for attempt in 1 2 3; do  # a freshly started sshd may not accept connections at once
    is_mounted "$SSHFS_MNT" && break
    sshfs "$(id -un)@127.0.0.1:$EXPORT" "$SSHFS_MNT" -p "$PORT" \
        -o IdentityFile="$SSH_DIR/client_key" -o StrictHostKeyChecking=no \
        -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o reconnect 2>"$SSH_DIR/sshfs.err" && break
    sleep "$attempt"
  done
  if ! is_mounted "$SSHFS_MNT"; then
    skip "sshfs mount refused: $(cat "$SSH_DIR/sshfs.err")"
    return 0
  fi
  say "sshfs volume: $SSHFS_MNT (= $EXPORT over ssh to 127.0.0.1:$PORT)"
}

remove_group() {
  local group=$1
  [ -d "$group" ] || return 0
  # A cgroup can only be removed once empty: move stragglers back to the root group.
  while read -r pid; do echo "$pid" >"$BLKIO/cgroup.procs" 2>/dev/null || true; done <"$group/cgroup.procs"
  rmdir "$group" 2>/dev/null || say "could not remove $group (processes still inside?)"
}

teardown() {
  if is_mounted "$SSHFS_MNT"; then
    fusermount3 -u "$SSHFS_MNT" 2>/dev/null || fusermount -u "$SSHFS_MNT" 2>/dev/null || umount -l "$SSHFS_MNT"
  fi
  if sshd_running; then kill "$(cat "$SSH_DIR/sshd.pid")"; fi
  if is_mounted "$LOOP_MNT"; then umount "$LOOP_MNT" || umount -l "$LOOP_MNT"; fi
  local dev
  if dev=$(loop_device); then losetup -d "$dev"; fi
  remove_group "$CGROUP"
  for g in "$BLKIO"/edgestream-throttled*; do [ -d "$g" ] && remove_group "$g"; done
  rm -rf "$IMG" "$LOOP_DEV_FILE" "$LOOP_MNT" "$SSH_DIR" "$EXPORT" "$SSHFS_MNT" "$ROOT"/throttle.rates.*
  rmdir "$ROOT" 2>/dev/null || true
  say "torn down"
}

status() {
  local dev="" rates=""
  dev=$(loop_device 2>/dev/null) || dev=""
  [ -f "$ROOT/throttle.rates.$CGROUP_NAME" ] && rates=$(cat "$ROOT/throttle.rates.$CGROUP_NAME")
  if [ -n "$dev" ] && is_mounted "$LOOP_MNT"; then
    echo "LOOP_DIR=$LOOP_MNT"
    echo "LOOP_DEV=$dev"
    echo "LOOP_MAJMIN=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')"
    if [ -d "$CGROUP" ]; then
      echo "THROTTLE_CGROUP=$CGROUP"
      echo "THROTTLE_READ_MBPS=${rates% *}"
      echo "THROTTLE_WRITE_MBPS=${rates#* }"
    fi
  fi
  if is_mounted "$SSHFS_MNT"; then
    echo "SSHFS_DIR=$SSHFS_MNT"
    echo "SSHFS_EXPORT=$EXPORT"
  fi
}

cmd="${1:-}"
case "$cmd" in
  setup)
    need_root setup
    what="${2:-all}"
    case "$what" in
      loop) setup_loop ;;
      sshfs) setup_sshfs ;;
      all) setup_loop; setup_sshfs ;;
      *) say "setup loop|sshfs|all"; exit 2 ;;
    esac
    status
    ;;
  teardown) need_root teardown; teardown ;;
  status) status ;;
  remove-group)
    need_root remove-group
    [ "$CGROUP_NAME" != "edgestream-throttled" ] || { say "remove-group is for ES_CGROUP_NAME groups (teardown removes the default)"; exit 2; }
    remove_group "$CGROUP"
    rm -f "$ROOT/throttle.rates.$CGROUP_NAME"
    ;;
  throttle)
    need_root throttle
    [ $# -eq 3 ] || { say "throttle READ_MBPS WRITE_MBPS"; exit 2; }
    dev=$(loop_device) || { say "no loop volume (run setup first)"; exit 1; }
    apply_throttle "$dev" "$2" "$3"
    ;;
  exec)
    shift
    [ "${1:-}" = "--" ] && shift
    [ $# -ge 1 ] || { say "exec -- CMD [ARGS...]"; exit 2; }
    if [ -d "$CGROUP" ]; then
      echo $$ >"$CGROUP/cgroup.procs"
    else
      say "warning: no throttle cgroup $CGROUP (run setup as root); running unthrottled"
    fi
    exec "$@"
    ;;
  *)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
    ;;
esac
