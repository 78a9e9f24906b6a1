#pragma once
/// \file model_files.hpp
/// The files a model names, read and written safely: regular files only (opened first, then
/// checked, so nothing can be swapped in between), read no further than their size, inside the
/// model's folder unless allowed, never written through a link. writeFile's exclusive temporary
/// and rename are npy.hpp's (npy::write, npy::write_file_atomically). Private to the model reader
/// (tools/model*.cpp).

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <dmlref/npy.hpp>

#include "model_json.hpp"

namespace dmlref::model::internal {

/// A regular file opened for reading, with its size when opened; or why it could not be.
struct opened_file {
    npy::detail::file_handle file;
    std::uint64_t size = 0;
    std::string error; ///< empty when opened
};

/// Opens `path` only if it is a regular file. The type is checked on the opened file itself
/// (POSIX: open without blocking, then fstat), so a FIFO that no one writes, /dev/zero, a folder
/// or a terminal is refused before a byte is read and cannot be swapped in after the check.
opened_file open_regular(const std::filesystem::path& path);

/// Reads exactly `into.size()` bytes; false when the file ends first.
bool read_exact(std::FILE* f, std::span<std::byte> into);

/// True when the file holds nothing more: a file that grew after it was measured is not read on.
bool at_end(std::FILE* f);

/// The bytes of a regular file no longer than `max_bytes`, read no further than its size; `fail`
/// is called with the reason (and must not return).
std::vector<std::byte> read_regular(const std::filesystem::path& path, std::uint64_t max_bytes,
                                    const std::function<void(std::string)>& fail);

/// Where the model's files may lie: its folder, resolved once (symlinks and "..").
struct path_rule {
    std::filesystem::path folder;      ///< relative paths resolve against this (as written)
    std::filesystem::path canonical;   ///< the folder with links and ".." resolved
    bool allow_outside = false;
};

/// The rule for a model read from `folder`: the folder resolved once, unless paths may leave it.
path_rule make_path_rule(const std::filesystem::path& folder, bool allow_outside, const at& where);

/// A sourcePath or targetPath: resolved against the model's folder, and refused when, after
/// resolving ".." and symlinks, it leaves that folder (unless allowed): a model file from elsewhere
/// must not read /etc/passwd into a print, nor write over a file of the user's.
std::filesystem::path model_path(const path_rule& rule, const std::string& text, const at& where);

/// Refuses a writeFile target that is a symbolic link or exists as anything but a regular file.
void check_write_target(const std::filesystem::path& target, const at& where);

/// Reads a .npy header from an opened file: the bytes it announces and no more.
npy::header read_npy_header(std::FILE* f, std::uint64_t file_size, const std::filesystem::path& path, const at& where);

} // namespace dmlref::model::internal
