// test_validation.cpp built without DMLREF_CHECK_FORMAT_STRINGS, as users build the library: fmt
// then checks no format string at compile time, and dmlref's headers do not include it (the test
// does, to compare the messages' formatting with fmt's). The same expected messages must come out.
#undef DMLREF_CHECK_FORMAT_STRINGS
#include "test_validation.cpp"
