# Cross-compiling on Debian 12 with its multiarch packages (scripts/cross-build.sh installs them):
# the cross g++ of NAPISCOPE_CROSS_TRIPLET, the libraries' :arch -dev packages in
# /usr/lib/<triplet>, the headers in /usr/include. libtracecmd (not Multi-Arch: same in Debian 12,
# so it cannot sit beside the build machine's) comes unpacked under
# /var/cache/napiscope-cross/<triplet>. Included by cmake/arm64.cmake and cmake/armhf.cmake.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${NAPISCOPE_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${NAPISCOPE_CROSS_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${NAPISCOPE_CROSS_TRIPLET})
set(NAPISCOPE_CROSS_UNPACKED /var/cache/napiscope-cross/${NAPISCOPE_CROSS_TRIPLET})
# pkg-config reads the target's .pc files only (Debian 12 has no <triplet>-pkg-config wrapper
# without the target's pkgconf).
set(PKG_CONFIG_EXECUTABLE /usr/bin/pkg-config CACHE FILEPATH "pkg-config, reading the target's .pc files")
set(ENV{PKG_CONFIG_LIBDIR}
    "${NAPISCOPE_CROSS_UNPACKED}/usr/lib/${NAPISCOPE_CROSS_TRIPLET}/pkgconfig:/usr/lib/${NAPISCOPE_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
# Target programs (the tests, gtest's test discovery) run under qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-${NAPISCOPE_QEMU_CPU}-static)
# The build machine's programs (protoc, python3), the target's libraries and headers.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
