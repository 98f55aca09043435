// A header of the compile-options cases: it needs the macro BM (-DBM=...) and its constexpr
// host function is called from device code, which nvcc allows only with
// --expt-relaxed-constexpr.
#pragma once
#ifndef BM
#error "BM must be defined (compile.flags: -DBM=...)"
#endif
constexpr int tile_rows(int x) { return x * BM; }
