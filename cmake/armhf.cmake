# CMake toolchain for Debian's armhf (32-bit ARMv7, hard float) from an amd64 Debian 12:
# scripts/cross-build.sh armhf.
set(NAPISCOPE_CROSS_TRIPLET arm-linux-gnueabihf)
set(NAPISCOPE_QEMU_CPU arm)
set(CMAKE_SYSTEM_PROCESSOR arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
