#!/usr/bin/env bash
# Installs EdgeStream's build and test dependencies from Debian's packages. Idempotent: packages
# already present are not downloaded again; needs root (or sudo) for apt-get.
set -euo pipefail
# clang + libclang-rt-14-dev: libFuzzer (libclang_rt.fuzzer*.a ships in libclang-rt-14-dev on
# Debian 12) and the clang ASan/UBSan runtime for scripts/fuzz.sh and scripts/sanitize.sh.
packages=(build-essential cmake ninja-build pkg-config liburing-dev zlib1g-dev libsnappy-dev
          libboost-program-options-dev catch2 fio clang libclang-rt-14-dev
          python3 python3-matplotlib)  # storage: benchmarks/sweep and its tests; plot_sweep's plots
# openssh-server and sshfs (the loopback network-filesystem volume) are installed by
# scripts/volumes.sh setup only when that volume is set up.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
