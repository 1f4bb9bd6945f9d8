#include "ThrowCounter.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <typeinfo>

namespace {

std::atomic<long> gThrown{0};

using ThrowFunction = void (*)(void*, std::type_info*, void (*)(void*));

ThrowFunction runtimeThrow() {
  void* symbol = dlsym(RTLD_NEXT, "__cxa_throw");
  ThrowFunction f = nullptr;
  std::memcpy(&f, &symbol, sizeof f);  // object to function pointer without a conditionally-supported cast
  return f;
}

}  // namespace

long propimpact::testing::exceptionsThrown() { return gThrown.load(); }

// The program's own definition is found before the C++ runtime's, by the
// library's calls too; it counts and hands over to the runtime's.
extern "C" [[noreturn]] void __cxa_throw(void* thrown, std::type_info* type, void (*destroy)(void*)) {
  gThrown.fetch_add(1);
  static const ThrowFunction next = runtimeThrow();
  next(thrown, type, destroy);
  __builtin_unreachable();
}
