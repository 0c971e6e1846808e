#!/bin/sh
# Stand-in for Huawei's @FILE@ (a self-extracting .run installer) on lab nodes: it takes the options
# the real one documents and writes the files the real one leaves that accelplane reads: the
# version files, set_env.sh, npu-smi. Component @COMPONENT@, version @VERSION@.
set -e
component='@COMPONENT@'
version='@VERSION@'
full=no install=no quiet=no all=no
for option; do
  case "$option" in
    --full) full=yes ;;
    --install) install=yes ;;
    --quiet) quiet=yes ;;
    --install-for-all) all=yes ;;
    *) echo "[ERROR] unknown option $option" >&2; exit 1 ;;
  esac
done
[ "$quiet" = yes ] || { echo "[ERROR] the EULA needs an answer: run with --quiet" >&2; exit 1; }
root=/usr/local/Ascend
home=$root/ascend-toolkit
arch=$(uname -m)
case "$component" in
  driver)
    [ "$full" = yes ] && [ "$all" = yes ] || { echo "[ERROR] driver: --full --install-for-all expected" >&2; exit 1; }
    id HwHiAiUser >/dev/null 2>&1 || { echo "[ERROR] the running user HwHiAiUser does not exist" >&2; exit 1; }
    mkdir -p "$root/driver" /usr/local/bin
    printf 'Version=%s\nascendhal_version=7.35.19\n' "$version" > "$root/driver/version.info"
    cat > /usr/local/bin/npu-smi <<'NPUSMI'
@NPU_SMI@
NPUSMI
    chmod 0755 /usr/local/bin/npu-smi
    ;;
  firmware)
    [ "$full" = yes ] || { echo "[ERROR] firmware: --full expected" >&2; exit 1; }
    [ -f "$root/driver/version.info" ] || { echo "[ERROR] install the driver before the firmware" >&2; exit 1; }
    mkdir -p "$root/firmware"
    printf 'Version=%s\nfirmware_version=1.0\n' "$version" > "$root/firmware/version.info"
    ;;
  toolkit)
    [ "$install" = yes ] || { echo "[ERROR] toolkit: --install expected" >&2; exit 1; }
    mkdir -p "$home/$version/$arch-linux"
    printf 'package_name=Ascend-cann-toolkit\nversion=%s\narch=%s\nos=linux\npath=%s\n' \
      "$version" "$arch" "$home/$version/$arch-linux" > "$home/$version/$arch-linux/ascend_toolkit_install.info"
    ln -sfn "$version" "$home/latest"
    cat > "$home/set_env.sh" <<'SETENV'
export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest
export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}
export ASCEND_OPP_PATH=${ASCEND_TOOLKIT_HOME}/opp
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:/usr/local/Ascend/driver/lib64:${LD_LIBRARY_PATH}
SETENV
    ;;
  kernels)
    [ "$install" = yes ] || { echo "[ERROR] kernels: --install expected" >&2; exit 1; }
    grep -qx "version=$version" "$home/latest/$arch-linux/ascend_toolkit_install.info" 2>/dev/null \
      || { echo "[ERROR] the kernels need the CANN toolkit $version" >&2; exit 1; }
    mkdir -p "$home/$version/opp_kernel"
    printf 'Version=%s\nversion_dir=%s\n' "$version.B000" "$version" > "$home/$version/opp_kernel/version.info"
    ;;
esac
echo "@FILE@ install success"
