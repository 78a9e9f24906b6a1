# gtest.example_planted: runs the example built with one element changed (cmake -DPROGRAM=... -P
# this file) and passes only where it fails, and fails with dmlref's report: the count, the element
# with both values and bits, the coordinate ranges, and with the operator its region and source.
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(result EQUAL 0)
  message(FATAL_ERROR "the example with a planted change passed")
endif()
foreach(line IN ITEMS
        "Expected: is bit-identical to the expected tensor"
        "which is not bit-identical:\nFLOAT32 tensor of sizes {1, 1, 4, 6}: 1 of 24 elements differ\n"
        "  [0, 0, 2, 3] 10 (0x41200000) vs -1 (0xbf800000)\n"
        "my_depth_to_space(x) is not bit-identical to expected:\nFLOAT32 tensor of sizes {1, 1, 4, 6}: 1 of 24 elements differ\n"
        "  [0, 0, 2, 3] 10 (0x41200000) vs -1 (0xbf800000); from input [0, 1, 1, 1]\n"
        "  axis 2 (size 4): 2\n  axis 3 (size 6): 3\n"
        "by region of the DEPTH_TO_SPACE1 output:\n  block offset (0, 1): 1 of 6 elements differ\n"
        "[  FAILED  ] 2 tests")
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the failure output lacks:\n${line}")
  endif()
endforeach()
message("the planted change failed both tests with dmlref's report")
