// The allocation counters of AllocationCounting.h.
//
// What is counted: every call of the replaced global operator new (all forms)
// and, on glibc without a sanitizer, every call of malloc / calloc / realloc / memalign /
// posix_memalign / aligned_alloc (interposed and forwarded to glibc's own
// __libc_* functions; Eigen and Bullet allocate through these, not through
// operator new) — but only while the thread-local flag below is set, and the
// flag is set only around our code:
//  - core: ImpactResolver::resolve on a problem it has resolved before, into
//    the same ImpactResult (the workspace and the result keep their capacity);
//  - adapter: PropagativeImpactSolver::solveGroup of a test subclass, with the
//    flag cleared again inside Bullet's own sequential-impulse stages
//    (solveGroupCacheFriendlySetup / Iterations / Finish, the virtual stages of
//    btSequentialImpulseConstraintSolver::solveGroup): everything of ours —
//    classification, clusters, ImpactProblem set-up, the resolve, write-back —
//    is counted, Bullet's pass is not.
// The adapter is run with SolverSettings::keepReport = false: the per-cluster
// report (vectors of bodies and contacts per ClusterReport) allocates by
// design whenever there is an impact to report.
#include "AllocationCounting.h"

#include "../SanitizerBuild.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#include <execinfo.h>
#include <unistd.h>
#endif

namespace {

thread_local bool g_counting = false;
thread_local long g_newCalls = 0;
thread_local long g_mallocCalls = 0;

// PROPIMPACT_ALLOCATION_TRACE=1 prints the call stack of every counted
// allocation (to find where one comes from: addr2line or c++filt the frames).
void traceCounted() {
#if defined(__GLIBC__)
  static const bool tracing = std::getenv("PROPIMPACT_ALLOCATION_TRACE") != nullptr;
  thread_local bool inside = false;  // backtrace may allocate the first time
  if (!tracing || inside) return;
  inside = true;
  void* frames[32];
  const int depth = backtrace(frames, 32);
  static const char separator[] = "--- counted allocation\n";
  (void)!write(2, separator, sizeof separator - 1);
  backtrace_symbols_fd(frames, depth, 2);
  inside = false;
#endif
}

void countNew() {
  if (!g_counting) return;
  ++g_newCalls;
  traceCounted();
}
[[maybe_unused]] void countMalloc() {
  if (!g_counting) return;
  ++g_mallocCalls;
  traceCounted();
}

}  // namespace

namespace propimpact::alloc_counting {

long newCalls() { return g_newCalls; }
long mallocCalls() { return g_mallocCalls; }
void resetCounts() { g_newCalls = g_mallocCalls = 0; }
bool setCounting(bool on) {
  const bool previous = g_counting;
  g_counting = on;
  return previous;
}

}  // namespace propimpact::alloc_counting

#if defined(PROPIMPACT_TEST_UNDER_ASAN)
#define PROPIMPACT_SANITIZED_ALLOCATOR 1
#endif
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define PROPIMPACT_SANITIZED_ALLOCATOR 1
#endif
#endif

// The sanitizers bring their own malloc: interposing it there would hand them
// blocks they did not allocate, so only operator new is counted in those builds.
#if defined(__GLIBC__) && !defined(PROPIMPACT_SANITIZED_ALLOCATOR)
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t size) {
  countMalloc();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  countMalloc();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  countMalloc();
  return __libc_realloc(pointer, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  countMalloc();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  countMalloc();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  countMalloc();
  void* p = __libc_memalign(alignment, size);
  if (!p) return 12;  // ENOMEM
  *out = p;
  return 0;
}
void free(void* pointer) { __libc_free(pointer); }
}
#endif

// Replaced global operator new / delete: count, then allocate with malloc.
// gcc 12 at -O1 (the sanitizer build) inlines these into each other and then
// warns that memory from operator new is released by free: here that pairing
// is the point (every new is a malloc, every delete a free).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  countNew();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  countNew();
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  countNew();
  void* p = nullptr;
  const std::size_t a = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  if (posix_memalign(&p, a, size ? size : 1) != 0) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size, std::align_val_t alignment) { return ::operator new(size, alignment); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

