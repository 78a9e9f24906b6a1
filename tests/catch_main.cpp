// The one Catch2 main of dmlref's test binaries; Catch2's implementation is catch_impl.cpp.
int dmlref_catch_run(int argc, char* argv[]);

int main(int argc, char* argv[]) { return dmlref_catch_run(argc, argv); }
