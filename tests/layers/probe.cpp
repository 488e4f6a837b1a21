// One include, compiled as part of one core layer by the layer tests (CMakeLists.txt here):
// a header the layer may include compiles, one of a layer above it (or another layer's
// internals) must not.
#include NAPISCOPE_PROBE_INCLUDE

int napiscope_layer_probe = 0;
