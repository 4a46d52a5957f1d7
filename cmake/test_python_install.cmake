# ctest Python.Install: installs the "python" component into PREFIX (as `make python PYTHON_SITE=PREFIX` does) and
# imports ktune from there with PYTHON, from outside the build tree.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component python --prefix ${PREFIX}
                RESULT_VARIABLE installed)
if(NOT installed EQUAL 0)
  message(FATAL_ERROR "installing the python component failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PREFIX}
                        ${PYTHON} -c "import ktune, ktune.observers.nvml, ktune.strategies.wrapper, os; print(ktune.__version__, os.path.dirname(ktune.__file__))"
                WORKING_DIRECTORY ${PREFIX} RESULT_VARIABLE imported OUTPUT_VARIABLE printed ERROR_VARIABLE errors)
if(NOT imported EQUAL 0)
  message(FATAL_ERROR "import ktune from ${PREFIX} failed: ${errors}")
endif()
string(FIND "${printed}" "${PREFIX}/ktune" where)
if(where EQUAL -1)
  message(FATAL_ERROR "ktune was imported from elsewhere: ${printed}")
endif()
message(STATUS "imported ${printed}")
