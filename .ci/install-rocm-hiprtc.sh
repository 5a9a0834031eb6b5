#!/usr/bin/env bash
# Install ROCm's run-time compiler (hiprtc) from Debian 12's own packages, so that the
# tests can compile every HIP kernel for AMD targets on a machine without a GPU.
# Idempotent: it installs only what is missing. The hip backend finds Debian's
# libamdhip64.so.5 (which also carries the hiprtc functions) by itself.
set -euo pipefail

packages=(libamdhip64-5 libhiprtc-builtins5 libamd-comgr2 rocm-device-libs)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

library=$(dpkg -L libamdhip64-5 | grep -m1 '/libamdhip64\.so\.5$' || true)
if [ -z "$library" ]; then
    echo "libamdhip64.so.5 not found after installing libamdhip64-5" >&2
    exit 1
fi
echo "HIP runtime and hiprtc: $library"
