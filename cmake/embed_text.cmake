# ktune_embed_text(FILE NAME OUT): writes OUT, a C++ line defining `inline constexpr const char NAME[]` as FILE's
# text (a raw string literal), again whenever FILE changes (CMake re-runs when it does). The file must not contain
# the raw string's delimiter.
function(ktune_embed_text file name out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(READ ${file} text)
  string(FIND "${text}" ")ktune_text\"" found)
  if(NOT found EQUAL -1)
    message(FATAL_ERROR "${file} contains the delimiter )ktune_text\"")
  endif()
  file(WRITE ${out}.tmp "inline constexpr const char ${name}[] = R\"ktune_text(${text})ktune_text\";\n")
  configure_file(${out}.tmp ${out} COPYONLY)  # touched only when it changed
endfunction()
