# ctest Examples.InstalledConsumer (cmake -P): installs the build into WORK_DIR/prefix, then builds and runs
# examples/consumer against that prefix, once through find_package(ktune) and once through pkg-config, and
# examples/application against the runtime alone (ktune::runtime, pkg-config ktune-runtime).
# Variables: BUILD_DIR SOURCE_DIR WORK_DIR CXX FLAGS RESULTS.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/ktune include/ktune/ktune.hpp include/ktune/version.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "${f} was not installed")
  endif()
endforeach()

# find_package(ktune) -> ktune::ktune
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${WORK_DIR}/cmake-build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}"
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run(${WORK_DIR}/cmake-build/ktune_consumer ${RESULTS})
if(NOT out MATCHES "genetic_algorithm on .*100 evaluations.*best time = ")
  message(FATAL_ERROR "unexpected output of the consumer:\n${out}")
endif()
set(cmake_out "${out}")

# pkg-config --cflags --libs ktune, from the installed .pc file
file(GLOB pc_file ${prefix}/lib*/pkgconfig/ktune.pc ${prefix}/lib/*/pkgconfig/ktune.pc)
if(NOT pc_file)
  message(FATAL_ERROR "ktune.pc was not installed")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run(pkg-config --cflags --libs ktune)
string(STRIP "${out}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(extra UNIX_COMMAND "${FLAGS}")
run(${CXX} ${extra} -O1 ${SOURCE_DIR}/examples/consumer/main.cpp -o ${WORK_DIR}/consumer-pc ${pc_flags})
run(${WORK_DIR}/consumer-pc ${RESULTS})
if(NOT out STREQUAL cmake_out)
  message(FATAL_ERROR "the pkg-config build printed something else:\n${out}\nthan the CMake build:\n${cmake_out}")
endif()
message(STATUS "installed consumer ok:\n${out}")

# The application of examples/application against the installed runtime alone: find_package(ktune) ->
# ktune::runtime, and pkg-config ktune-runtime. Neither links the tuner or its dependencies.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/application -B ${WORK_DIR}/app-build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}"
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/app-build)
run(${WORK_DIR}/app-build/ktune_application 4096)
if(NOT out MATCHES "saxpy  n=4096 verified: .*smooth n=4096 verified: ")
  message(FATAL_ERROR "unexpected output of the application:\n${out}")
endif()
run(pkg-config --cflags --libs ktune-runtime)
string(STRIP "${out}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
run(${CXX} ${extra} -O1 ${SOURCE_DIR}/examples/application/main.cpp -o ${WORK_DIR}/app-build/application-pc ${pc_flags})
run(${WORK_DIR}/app-build/application-pc 4096)
if(NOT out MATCHES "saxpy  n=4096 verified: .*smooth n=4096 verified: ")
  message(FATAL_ERROR "unexpected output of the pkg-config application:\n${out}")
endif()
# What the application needs at run time: the C++ runtime, OpenCL, libc; none of the tuner's libraries.
run(ldd ${WORK_DIR}/app-build/ktune_application)
foreach(library fmt ffi nlopt curl sqlite3 seccomp libz)
  if(out MATCHES "${library}")
    message(FATAL_ERROR "the application links ${library}, a dependency of the tuner:\n${out}")
  endif()
endforeach()
message(STATUS "installed application ok")
