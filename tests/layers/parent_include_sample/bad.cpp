// A file that includes through "../": the check must reject it.
#include "../probe.cpp"
