// Linux's readiness API for the HTTP server's event loop; Glibc's Swift module leaves these headers out.
#include <sys/epoll.h>
#include <sys/eventfd.h>
