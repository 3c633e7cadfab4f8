#ifndef TRIPSTREAM_HEAP_STATS_H
#define TRIPSTREAM_HEAP_STATS_H
#include <stddef.h>

/// Bytes currently allocated through malloc (glibc's mallinfo2: in-use chunks plus mmapped blocks).
/// Used by `tripstream-bench` to measure memory per tracked user.
size_t tripstream_heap_in_use(void);

#endif
