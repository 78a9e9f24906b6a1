# The model reader's sources, in tools/: the tool's dmlref_model library, the Python module
# (python/CMakeLists.txt) and python/setup.py all compile this one list.
set(dmlref_model_sources model.cpp model_commands.cpp model_descs.cpp model_files.cpp model_first_pass.cpp model_json.cpp
                         model_resources.cpp)
