#!/usr/bin/env bash
# Installs what the project needs to build, test and run, from Debian's
# packages. Idempotent: does nothing when everything is there. Needs root.
set -euo pipefail

PACKAGES=(
  # build
  meson ninja-build pkg-config gcc clang libclang-rt-14-dev python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev libx264-dev libnice-dev
  # SRTP inside the elements (gst/common/gstnetsrtp.c)
  libsrtp2-dev
  # run and test: rtpbin, udp, x264enc, avdec_h264, checksumsink, rtpst2022-1
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  gstreamer1.0-nice
  # network test bed: namespaces, tbf, nftables loss, NFQUEUE delay/bursts
  iproute2 nftables iptables libnetfilter-queue-dev
  # the nice transport's NAT test: a STUN and TURN server
  coturn
  # x264layerenc quality benchmark (tests/bench/bench-x264layerenc-quality.py):
  # ffmpeg decodes the streams and compares them by its psnr and ssim filters
  ffmpeg
  # RMTP's peer in its benchmark (tests/bench/bench_rmtp_uftp.py); its
  # TFMCC is a peer in the VLMCC fairness benchmark (bench_vlmcc_fairness.py)
  uftp
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing ${missing[*]}; run as root (or with sudo)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
