#!/usr/bin/env bash
# xinterp copy of the avx512-emu prototype runner (the team's shared tooling), carried in the
# project so the lane needs nothing outside the repository. Behaviour unchanged.
# run-avx512.sh - run a statically linked x86-64 Linux program under the Bochs
# emulator with an AVX-512 CPU model, headless, and hand back its output and
# exit code.
#
# Usage: run-avx512.sh [options] BINARY [ARGS...]
#   --cpu MODEL        Bochs CPU model (default: tigerlake; see `bochs -help cpu`).
#                      AVX-512 models in Bochs 2.7: corei7_skylake_x,
#                      corei3_cnl, corei7_icelake_u, tigerlake.
#   --timeout S        hard wall-clock limit for boot + run (default 900);
#                      on expiry the emulator is killed and we exit 124.
#   --mem MB           guest memory (default 512).
#   --kernel K         tiny   (default) a minimal kernel built once from Debian's
#                             linux-source package (~4.5 min, cached); ~6.5 s a run.
#                      debian Debian's stock linux-image-amd64 (no build, but the
#                             XZ kernel takes ~2.5 min to decompress in Bochs on
#                             every boot).
#   --add SRC[:DEST]   also put file/dir SRC into the guest at DEST (default
#                      /data/<basename>); repeatable. The program runs in /.
#   --env NAME=VALUE   set an environment variable for the program; repeatable.
#   --timestamps       prefix every output line with host seconds since start.
#   --keep             keep the per-run work dir (always kept on failure).
#   --verbose          show progress messages and the kernel log on stderr
#                      (without it the guest kernel boots with "quiet").
#   --ips N            Bochs instructions-per-second calibration (default 50000000).
#   --append "OPTS"    extra guest kernel command-line options.
#   --build-only       just install/build the cached parts, run nothing.
#
# Output: the program's stdout and stderr (merged, in order) on our stdout.
# Exit code: the program's exit code (128+N if killed by signal N),
#            124 on timeout, 125 if the emulator or the guest kernel failed.
#
# Environment: AVX512_EMU_CACHE (default /tmp/avx512-emu-cache) holds the
# kernel, the base initramfs and downloaded packages; AVX512_EMU_TMP (default
# /tmp) gets the per-run work dirs.
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# hashed now, while the file is surely readable (keys the cached base initramfs)
SELF_HASH=$(sha256sum < "$SELF_DIR/$(basename "${BASH_SOURCE[0]}")" | cut -c1-16)
CACHE=${AVX512_EMU_CACHE:-/tmp/avx512-emu-cache}
TMPROOT=${AVX512_EMU_TMP:-/tmp}

CPU=tigerlake
TIMEOUT=900
MEM=512
KERNEL=tiny
IPS=50000000
TIMESTAMPS=0
KEEP=0
VERBOSE=0
BUILD_ONLY=0
KAPPEND=""
ADDS=()
ENVS=()

# Kernel command line. clearcpuid works around two Bochs 2.7 / Linux 6.1 issues
# (see README.md): 321=xsavec 323=xsaves 515=pku (Bochs reports an XSAVE layout
# the kernel rejects, which would disable AVX entirely) and 580=fsrm (Bochs'
# IA32_MISC_ENABLE lacks fast-strings, the kernel then drops ERMS but keeps
# FSRM, and 6.1's memmove() corrupts memory in that combination).
# tsc_early_khz: Bochs' TSC advances one tick per instruction (= --ips per
# emulated second) while its CPUID claims 2.4 GHz; telling the kernel the real
# rate keeps guest time consistent with the emulated timers, so sleeps in the
# guest pass quickly instead of at ~1:1 wall-clock speed.
KCMDLINE="console=ttyS0,115200 clearcpuid=321,323,515,580 nokaslr tsc_early_khz=__TSC_KHZ__"

die() { echo "run-avx512: $*" >&2; exit 125; }
log() { if [ "$VERBOSE" = 1 ]; then echo "run-avx512: $*" >&2; fi; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

usage() { sed -n "2,/^set -euo/p" "${BASH_SOURCE[0]}" | sed "/^set -euo/d; s/^# \{0,1\}//"; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --cpu) CPU=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --mem) MEM=$2; shift 2 ;;
        --kernel) KERNEL=$2; shift 2 ;;
        --ips) IPS=$2; shift 2 ;;
        --append) KAPPEND=$2; shift 2 ;;
        --add) ADDS+=("$2"); shift 2 ;;
        --env) ENVS+=("$2"); shift 2 ;;
        --timestamps) TIMESTAMPS=1; shift ;;
        --keep) KEEP=1; shift ;;
        --verbose) VERBOSE=1; shift ;;
        --build-only) BUILD_ONLY=1; shift ;;
        -h|--help) usage 0 ;;
        --) shift; break ;;
        -*) echo "unknown option $1" >&2; usage 2 ;;
        *) break ;;
    esac
done
if [ "$BUILD_ONLY" = 0 ] && [ $# -lt 1 ]; then usage 2; fi
case "$KERNEL" in tiny|debian) ;; *) die "--kernel must be tiny or debian" ;; esac
case "$TIMEOUT$MEM$IPS" in *[!0-9]*) die "--timeout, --mem and --ips take integers" ;; esac

T_START=$(now)

# ------------------------------------------------------------- packages ----
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo -n"; else SUDO=""; fi
fi
APT_UPDATED=0
apt_update_once() {
    if [ "$APT_UPDATED" = 0 ]; then
        log "apt-get update"
        $SUDO apt-get update -qq >/dev/null 2>&1 || $SUDO apt-get update || die "apt-get update failed"
        APT_UPDATED=1
    fi
}
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
ensure_pkgs() {
    local missing=() p
    for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "run-avx512: installing ${missing[*]}" >&2
    apt_update_once
    local alog
    alog=$(mktemp "${TMPDIR:-/tmp}/avx512-emu-apt.XXXXXX")
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
        "${missing[@]}" >"$alog" 2>&1 || { cat "$alog" >&2; rm -f "$alog"; die "apt-get install ${missing[*]} failed"; }
    rm -f "$alog"
}
# Download a .deb into the cache and unpack it there (no system install).
fetch_deb() {  # fetch_deb PACKAGE DESTDIR
    local pkg=$1 dest=$2 dl
    dl=$(mktemp -d "$CACHE/dl.XXXXXX")
    apt_update_once
    (cd "$dl" && apt-get download "$pkg" >"$dl/log" 2>&1) \
        || { cat "$dl/log" >&2; rm -rf "$dl"; die "apt-get download $pkg failed"; }
    rm -f "$dl/log"
    mkdir -p "$dest"
    dpkg-deb -x "$dl"/*.deb "$dest"
    rm -rf "$dl"
}

RUN_PKGS=(bochs bochsbios vgabios bochs-term xorriso isolinux syslinux-common cpio gcc)
TINY_PKGS=(make gcc flex bison bc libelf-dev libssl-dev xz-utils lz4)
ensure_pkgs "${RUN_PKGS[@]}"
[ "$KERNEL" = tiny ] && ensure_pkgs "${TINY_PKGS[@]}"
command -v script >/dev/null || die "'script' (bsdutils) is required"
command -v flock >/dev/null || die "'flock' (util-linux) is required"

CPU_MODELS=$(cd "$TMPROOT" && bochs-bin -help cpu 2>&1 | grep -E '^[a-z0-9_]+$' || true)
if ! printf '%s\n' "$CPU_MODELS" | grep -qx -- "$CPU"; then
    die "unknown Bochs CPU model '$CPU'; choose one of: $(echo $CPU_MODELS)"
fi

# ------------------------------------------------------ cached image parts ----
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9   # one builder at a time; parallel runs wait here, then reuse

# Minimal kernel: tinyconfig + what an initramfs-only, serial-console,
# statically-linked-test-program guest needs.
KFRAG='CONFIG_64BIT=y
CONFIG_PRINTK=y
CONFIG_PRINTK_TIME=y
CONFIG_EARLY_PRINTK=y
CONFIG_BUG=y
CONFIG_TTY=y
# CONFIG_VT is not set
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_8250_NR_UARTS=4
CONFIG_SERIAL_8250_RUNTIME_UARTS=4
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
CONFIG_TMPFS=y
CONFIG_SHMEM=y
CONFIG_FUTEX=y
CONFIG_MULTIUSER=y
CONFIG_POSIX_TIMERS=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_AIO=y
CONFIG_ADVISE_SYSCALLS=y
CONFIG_MEMBARRIER=y
CONFIG_FILE_LOCKING=y
CONFIG_RSEQ=y
CONFIG_X86_IOPL_IOPERM=y
CONFIG_KERNEL_LZ4=y
CONFIG_HZ_100=y
CONFIG_NO_HZ_IDLE=y
CONFIG_HIGH_RES_TIMERS=y
# CONFIG_RANDOMIZE_BASE is not set
# CONFIG_MODULES is not set
# CONFIG_IA32_EMULATION is not set
CONFIG_CPU_SUP_INTEL=y
CONFIG_CPU_SUP_AMD=y
CONFIG_HPET_TIMER=y'

build_tiny_kernel() {
    local srcpkg ver key
    # The cache key is the config fragment only: once built, a kernel is reused
    # without consulting apt (delete the cache dir to rebuild from newer source).
    key=$(printf '%s\n' "$KFRAG" "${AVX512_EMU_LINUX_SOURCE:-}" | sha256sum | cut -c1-16)
    if [ -f "$CACHE/kernel-tiny-$key/bzImage" ]; then
        ln -sfn "kernel-tiny-$key" "$CACHE/kernel-tiny"
        return 0
    fi
    apt_update_once
    srcpkg=${AVX512_EMU_LINUX_SOURCE:-}
    if [ -z "$srcpkg" ]; then
        srcpkg=$(apt-cache search --names-only '^linux-source-[0-9.]+$' | awk '{print $1}' | sort -V | tail -1)
        [ -n "$srcpkg" ] || die "no linux-source-X.Y package found in the apt lists"
    fi
    ver=$(apt-cache policy "$srcpkg" | awk '/Candidate:/{print $2}')
    echo "run-avx512: building a minimal kernel from $srcpkg $ver (one-time, several minutes)..." >&2
    local t0 b
    t0=$(now)
    b=$(mktemp -d "$CACHE/kbuild.XXXXXX")
    fetch_deb "$srcpkg" "$b/deb"
    local tarball
    tarball=$(ls "$b"/deb/usr/src/linux-source-*.tar.* | head -1)
    mkdir -p "$b/src" "$b/out"
    tar -xf "$tarball" -C "$b/src" --strip-components=1
    rm -rf "$b/deb"
    printf '%s\n' "$KFRAG" > "$b/frag.config"
    { make -s -C "$b/src" O="$b/out" ARCH=x86_64 tinyconfig \
      && "$b/src/scripts/kconfig/merge_config.sh" -m -O "$b/out" "$b/out/.config" "$b/frag.config" \
      && make -s -C "$b/src" O="$b/out" ARCH=x86_64 olddefconfig; } >"$b/config.log" 2>&1 \
        || { tail -30 "$b/config.log" >&2; die "kernel configuration failed (log: $b/config.log)"; }
    make -s -C "$b/src" O="$b/out" ARCH=x86_64 -j"$(nproc)" bzImage >"$b/build.log" 2>&1 \
        || { tail -30 "$b/build.log" >&2; die "kernel build failed (log: $b/build.log)"; }
    mkdir -p "$CACHE/kernel-tiny-$key"
    cp "$b/out/arch/x86/boot/bzImage" "$b/out/.config" "$b/out/System.map" "$CACHE/kernel-tiny-$key/"
    echo "$srcpkg $ver" > "$CACHE/kernel-tiny-$key/SOURCE"
    rm -rf "$b"
    ln -sfn "kernel-tiny-$key" "$CACHE/kernel-tiny"
    echo "run-avx512: kernel built in $(elapsed "$t0") s" >&2
}

fetch_debian_kernel() {
    if [ -f "$CACHE/kernel-debian/bzImage" ]; then return 0; fi
    apt_update_once
    local img
    img=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    [ -n "$img" ] || die "cannot resolve linux-image-amd64"
    local d
    d=$(mktemp -d "$CACHE/kdeb.XXXXXX")
    fetch_deb "$img" "$d"
    mkdir -p "$CACHE/kernel-debian"
    cp "$d"/boot/vmlinuz-* "$CACHE/kernel-debian/bzImage"
    echo "$img" > "$CACHE/kernel-debian/SOURCE"
    rm -rf "$d"
}

build_base_initramfs() {
    # busybox (unpacked from busybox-static, not installed) + /init + bxhalt
    local key
    key=$SELF_HASH
    if [ -f "$CACHE/base-$key.cpio" ]; then BASE_CPIO="$CACHE/base-$key.cpio"; return 0; fi
    if [ ! -x "$CACHE/busybox/bin/busybox" ]; then
        rm -rf "$CACHE/busybox"
        fetch_deb busybox-static "$CACHE/busybox"
    fi
    local r
    r=$(mktemp -d "$CACHE/base.XXXXXX")
    mkdir -p "$r/root/bin" "$r/root/sbin" "$r/root/dev" "$r/root/proc" "$r/root/sys" \
             "$r/root/tmp" "$r/root/data" "$r/root/avx512emu"
    cp "$CACHE/busybox/bin/busybox" "$r/root/bin/busybox"
    # bxhalt: write "Shutdown" to Bochs' shutdown port 0x8900 -> emulator exits.
    cat > "$r/bxhalt.c" <<'EOF'
static long sys3(long n, long a, long b, long c) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}
void _start(void) {
    const char* s = "Shutdown";
    if (sys3(173 /* ioperm */, 0x8900, 1, 1) == 0)
        for (; *s; s++) __asm__ volatile("outb %b0, %w1" : : "a"(*s), "d"(0x8900));
    sys3(60 /* exit */, 0, 0, 0);
    for (;;) {}
}
EOF
    gcc -static -nostdlib -Os -fno-asynchronous-unwind-tables -o "$r/root/bin/bxhalt" "$r/bxhalt.c" \
        || die "cannot compile bxhalt"
    cat > "$r/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin HOME=/ TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts && mount -t tmpfs tmpfs /dev/shm
# program output goes to the second serial port (host: out.log), raw mode so
# that "\n" is not turned into "\r\n"; the kernel log stays on ttyS0.
stty -F /dev/ttyS1 raw -echo 115200 2>/dev/null
echo "@@AVX512EMU-BEGIN@@" > /dev/ttyS1
cd /
sh /avx512emu/run > /dev/ttyS1 2>&1 < /dev/null
rc=$?
echo "" > /dev/ttyS1
echo "@@AVX512EMU-EXIT rc=$rc@@" > /dev/ttyS1
sync
/bin/bxhalt
poweroff -f
EOF
    chmod 755 "$r/root/init"
    (cd "$r/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$r/base.cpio"
    rm -f "$CACHE"/base-*.cpio   # stale ones from older versions of this script
    mv "$r/base.cpio" "$CACHE/base-$key.cpio"
    rm -rf "$r"
    BASE_CPIO="$CACHE/base-$key.cpio"
}

T_BUILD=$(now)
if [ "$KERNEL" = tiny ]; then build_tiny_kernel; KIMG="$CACHE/kernel-tiny/bzImage"
else fetch_debian_kernel; KIMG="$CACHE/kernel-debian/bzImage"; fi
build_base_initramfs
flock -u 9
log "cached parts ready in $(elapsed "$T_BUILD") s (kernel: $KIMG)"
if [ "$BUILD_ONLY" = 1 ]; then echo "run-avx512: cache ready in $CACHE"; exit 0; fi

# ------------------------------------------------------------ per run ----
BIN=$1; shift
[ -f "$BIN" ] || die "no such file: $BIN"
if command -v file >/dev/null && ! file -b "$BIN" | grep -q 'statically linked\|static-pie'; then
    echo "run-avx512: warning: $BIN does not look statically linked (the guest has no libc)" >&2
fi

WORK=$(mktemp -d "$TMPROOT/avx512-emu-run.XXXXXX")
cleanup_work() { if [ "$KEEP" = 0 ]; then rm -rf "$WORK"; else echo "run-avx512: work dir kept: $WORK" >&2; fi; }

P="$WORK/payload"
PROG_NAME=$(basename "$BIN")
mkdir -p "$P/avx512emu/bin" "$P/data"
cp "$BIN" "$P/avx512emu/bin/$PROG_NAME"     # keeps the basename: argv[0] matters to some programs
chmod 755 "$P/avx512emu/bin/$PROG_NAME"
for a in ${ADDS[@]+"${ADDS[@]}"}; do
    src=${a%%:*}; dest=/data/$(basename "$src")
    [ "$src" != "$a" ] && dest=${a#*:}
    [ -e "$src" ] || die "--add: no such file: $src"
    mkdir -p "$P$(dirname "$dest")"
    cp -a "$src" "$P$dest"
done
sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
    for e in ${ENVS[@]+"${ENVS[@]}"}; do
        case "$e" in *=*) ;; *) die "--env needs NAME=VALUE" ;; esac
        printf 'export %s=%s\n' "${e%%=*}" "$(sq "${e#*=}")"
    done
    printf 'exec %s' "$(sq "/avx512emu/bin/$PROG_NAME")"
    for arg in "$@"; do printf ' %s' "$(sq "$arg")"; done
    printf '\n'
} > "$P/avx512emu/run"
(cd "$P" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$WORK/payload.cpio"

ISO="$WORK/iso"
mkdir -p "$ISO/isolinux"
cp "$KIMG" "$ISO/vmlinuz"
cat "$BASE_CPIO" "$WORK/payload.cpio" > "$ISO/initrd.img"   # concatenated cpio archives
cp /usr/lib/ISOLINUX/isolinux.bin /usr/lib/syslinux/modules/bios/ldlinux.c32 "$ISO/isolinux/"
printf 'DEFAULT linux\nPROMPT 0\nTIMEOUT 0\nLABEL linux\n  KERNEL /vmlinuz\n  APPEND initrd=/initrd.img %s\n' \
    "${KCMDLINE/__TSC_KHZ__/$((IPS / 1000))}$([ "$VERBOSE" = 1 ] || echo " quiet")${KAPPEND:+ $KAPPEND}" \
    > "$ISO/isolinux/isolinux.cfg"
xorriso -as mkisofs -quiet -o "$WORK/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
    -no-emul-boot -boot-load-size 4 -boot-info-table "$ISO" 2>"$WORK/xorriso.log" \
    || { cat "$WORK/xorriso.log" >&2; die "xorriso failed"; }
rm -rf "$ISO" "$P" "$WORK/payload.cpio"

cat > "$WORK/bochsrc" <<EOF
config_interface: textconfig
display_library: term
memory: guest=$MEM, host=$MEM
romimage: file=/usr/share/bochs/BIOS-bochs-latest, options=fastboot
vgaromimage: file=/usr/share/vgabios/vgabios.bin
cpu: model=$CPU, count=1, ips=$IPS, reset_on_triple_fault=0
clock: sync=none, time0=local
pci: enabled=1, chipset=i440fx
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path=boot.iso, status=inserted
ata0-slave: type=none
ata1: enabled=0
ata2: enabled=0
ata3: enabled=0
boot: cdrom
floppy_bootsig_check: disabled=1
com1: enabled=1, mode=file, dev=kernel.log
com2: enabled=1, mode=file, dev=out.log
mouse: enabled=0
speaker: enabled=0
log: bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
EOF
# Debian's bochs-bin is built with the internal debugger: tell it to continue.
echo c > "$WORK/dbg.rc"
: > "$WORK/out.log"
: > "$WORK/kernel.log"
log "image ready in $(elapsed "$T_START") s; booting Bochs ($CPU, ${MEM} MB, $KERNEL kernel)"

# ------------------------------------------------------------- boot ----
# Bochs has no headless display library in Debian's build; its curses 'term'
# display needs a tty, which script(1) provides (its screen output is discarded).
T_BOOT=$(now)
(
    cd "$WORK"
    export TERM=xterm
    exec script -qefc 'echo $$ > bochs.pid; exec bochs-bin -q -f bochsrc -rc dbg.rc' /dev/null \
        </dev/null >"$WORK/bochs.out" 2>&1
) &
SCRIPT_PID=$!

BOCHS_PID=""
stop_bochs() {
    [ -z "$BOCHS_PID" ] && [ -s "$WORK/bochs.pid" ] && BOCHS_PID=$(cat "$WORK/bochs.pid")
    if [ -n "$BOCHS_PID" ] && kill -0 "$BOCHS_PID" 2>/dev/null; then
        kill -TERM "$BOCHS_PID" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$BOCHS_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$BOCHS_PID" 2>/dev/null || true
    fi
    if kill -0 "$SCRIPT_PID" 2>/dev/null; then
        for _ in 1 2 3 4 5; do kill -0 "$SCRIPT_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$SCRIPT_PID" 2>/dev/null || true
    fi
    wait "$SCRIPT_PID" 2>/dev/null || true
}
trap 'stop_bochs; exit 130' INT TERM

emit() {  # print one program output line
    if [ "$TIMESTAMPS" = 1 ]; then printf '[%7ss] %s\n' "$(elapsed "$T_BOOT")" "$1"; else printf '%s\n' "$1"; fi
}

RC=""
STATUS=running
OFF=0          # bytes of out.log consumed
PARTIAL=""
HELD_EMPTY=0
BEGUN=0
DEADLINE=$(awk -v a="$T_START" -v t="$TIMEOUT" 'BEGIN{printf "%.0f", a+t}')
while :; do
    SIZE=$(stat -c %s "$WORK/out.log" 2>/dev/null || echo 0)
    if [ "$SIZE" -gt "$OFF" ]; then
        CHUNK="$WORK/.chunk"
        tail -c +"$((OFF + 1))" "$WORK/out.log" > "$CHUNK" || true   # may have grown since stat
        OFF=$((OFF + $(stat -c %s "$CHUNK")))
        # split into lines; keep an unterminated tail for the next round
        while IFS= read -r line || { [ -n "$line" ] && PARTIAL+="$line" && false; }; do
            line="$PARTIAL$line"; PARTIAL=""
            line=${line%$'\r'}
            if [ "$BEGUN" = 0 ]; then
                [ "$line" = "@@AVX512EMU-BEGIN@@" ] && BEGUN=1
                continue
            fi
            [ "$STATUS" = running ] || continue
            case "$line" in
                "@@AVX512EMU-EXIT rc="*"@@")
                    # init writes one "\n" before the sentinel so that it always
                    # starts a line; an empty line held back just before it is that.
                    RC=${line#@@AVX512EMU-EXIT rc=}; RC=${RC%@@}; STATUS=done; HELD_EMPTY=0 ;;
                "")
                    [ "$HELD_EMPTY" = 1 ] && emit ""
                    HELD_EMPTY=1 ;;
                *)
                    [ "$HELD_EMPTY" = 1 ] && emit ""
                    HELD_EMPTY=0
                    emit "$line" ;;
            esac
        done < "$CHUNK"
    fi
    [ "$STATUS" = done ] && break
    if grep -q 'Kernel panic' "$WORK/kernel.log" 2>/dev/null; then STATUS=panic; break; fi
    if ! kill -0 "$SCRIPT_PID" 2>/dev/null; then
        # emulator gone: one last look at the output before giving up
        if [ "${LAST_LOOK:-0}" = 1 ]; then STATUS=died; break; fi
        LAST_LOOK=1; continue
    fi
    if [ "$(date +%s)" -ge "$DEADLINE" ]; then STATUS=timeout; break; fi
    sleep 0.2
done
# output cut short (timeout, crash): flush what is held back
if [ "$STATUS" != done ] && [ "$BEGUN" = 1 ]; then
    [ "$HELD_EMPTY" = 1 ] && emit ""
    [ -n "$PARTIAL" ] && emit "$PARTIAL"
fi

if [ "$STATUS" = done ]; then
    # bxhalt makes Bochs quit by itself; give it a moment, then make sure.
    for _ in $(seq 1 25); do kill -0 "$SCRIPT_PID" 2>/dev/null || break; sleep 0.2; done
fi
stop_bochs
trap - INT TERM
T_END=$(now)
log "boot+run took $(awk -v a="$T_BOOT" -v b="$T_END" 'BEGIN{printf "%.1f", b-a}') s; total $(awk -v a="$T_START" -v b="$T_END" 'BEGIN{printf "%.1f", b-a}') s"

show_diag() {
    echo "----- last kernel log lines ($WORK/kernel.log) -----" >&2
    tail -n 25 "$WORK/kernel.log" | tr -d '\r' >&2 || true
    echo "----- last Bochs log lines ($WORK/bochs.log) -----" >&2
    grep -av 'RDMSR\|WRMSR' "$WORK/bochs.log" 2>/dev/null | tail -n 10 >&2 || true
    echo "----- Bochs console ($WORK/bochs.out) -----" >&2
    tr -d '\r' < "$WORK/bochs.out" 2>/dev/null | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' \
        | grep -av '^$\|^ALSA\|lt_dlhandle\|PLUGIN' | tail -n 8 >&2 || true
}
case "$STATUS" in
    done)
        [ "$VERBOSE" = 1 ] && { echo "----- kernel log -----" >&2; tr -d '\r' < "$WORK/kernel.log" >&2; }
        cleanup_work
        exit "$RC" ;;
    timeout)
        echo "run-avx512: TIMEOUT after ${TIMEOUT} s (emulator killed)" >&2
        show_diag; KEEP=1; cleanup_work; exit 124 ;;
    panic)
        echo "run-avx512: guest kernel panic" >&2
        show_diag; KEEP=1; cleanup_work; exit 125 ;;
    *)
        echo "run-avx512: emulator exited before the program finished" >&2
        show_diag; KEEP=1; cleanup_work; exit 125 ;;
esac
