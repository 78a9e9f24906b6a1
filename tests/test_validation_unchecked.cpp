// test_validation.cpp built without DMLREF_CHECK_FORMAT_STRINGS, as users build the library: the
// messages then go through fmt::vformat, with no compile-time check of their format strings. The
// same expected messages must come out.
#undef DMLREF_CHECK_FORMAT_STRINGS
#include "test_validation.cpp"
