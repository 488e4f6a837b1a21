# CMake toolchain for Debian's arm64 (aarch64) from an amd64 Debian 12: scripts/cross-build.sh arm64.
set(NAPISCOPE_CROSS_TRIPLET aarch64-linux-gnu)
set(NAPISCOPE_QEMU_CPU aarch64)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
