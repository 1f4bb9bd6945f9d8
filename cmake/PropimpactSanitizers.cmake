# AddressSanitizer + UndefinedBehaviorSanitizer (PROPIMPACT_SANITIZE).
#
# What ships is instrumented: the core, the adapter and the scene library every
# Bullet test and example steps through. The test programs that drive them are
# instrumented only with PROPIMPACT_SANITIZE_TESTS: a memory error of the
# library is caught in the library's own instrumented code whoever allocated
# the memory (ASan replaces malloc for the whole program), while Eigen-heavy
# test files cost 3-10 times their plain compile time under the sanitizers
# (measured: EnergySplitTest.cpp 82 CPU-seconds at -O1 with them), most of
# CI's sanitizer stage. The fuzz targets instrument their checks separately.
# Instrumented code is built at -O1, the sanitizers' recommended level; the
# uninstrumented test programs at the build type's level (scripts/test passes
# -O3, the Release build's: at -O1 GCC 12 reports Eigen's comma initialisers
# as maybe-uninitialized, a false positive the Release build does not show).
if(PROPIMPACT_SANITIZE)
  set(PROPIMPACT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1)
  add_link_options(-fsanitize=address,undefined)
  if(PROPIMPACT_SANITIZE_TESTS)
    add_compile_options(${PROPIMPACT_SANITIZE_FLAGS})
  endif()
endif()

function(propimpact_sanitized target)
  if(PROPIMPACT_SANITIZE AND NOT PROPIMPACT_SANITIZE_TESTS)
    target_compile_options(${target} PRIVATE ${PROPIMPACT_SANITIZE_FLAGS})
  endif()
endfunction()
