# Warnings as errors apply to our own targets only, never to users of the headers.
function(propimpact_strict_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
endfunction()
