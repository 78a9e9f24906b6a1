// The files a model names, read and written safely (model_files.hpp).
#include "model_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace dmlref::model::internal {

opened_file open_regular(const std::filesystem::path& path) {
    opened_file out;
    const std::string name = path.string();
    auto kind_of = [](bool dir, bool chr, bool blk, bool fifo, bool sock) -> std::string_view {
        return dir ? "a folder" : chr ? "a character device" : blk ? "a block device" : fifo ? "a FIFO" : sock ? "a socket" : "not a regular file";
    };
#if defined(__unix__) || defined(__APPLE__)
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        out.error = fmt::format("cannot open '{}': {}", name, std::strerror(errno));
        return out;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        out.error = fmt::format("'{}' is {}, not a regular file; dmlref reads only regular files", name,
                                kind_of(S_ISDIR(st.st_mode), S_ISCHR(st.st_mode), S_ISBLK(st.st_mode), S_ISFIFO(st.st_mode),
                                        S_ISSOCK(st.st_mode)));
        ::close(fd);
        return out;
    }
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.file.reset(::fdopen(fd, "rb"));
    if (!out.file) {
        ::close(fd);
        out.error = fmt::format("cannot open '{}'", name);
    }
#else
    namespace fs = std::filesystem;
    std::error_code error;
    const auto status = fs::status(path, error);
    if (!fs::exists(status)) {
        out.error = fmt::format("cannot open '{}': no such file", name);
        return out;
    }
    if (!fs::is_regular_file(status)) {
        out.error = fmt::format("'{}' is {}, not a regular file; dmlref reads only regular files", name,
                                kind_of(fs::is_directory(status), fs::is_character_file(status), fs::is_block_file(status),
                                        fs::is_fifo(status), fs::is_socket(status)));
        return out;
    }
    out.size = fs::file_size(path, error);
    out.file.reset(npy::detail::open_file(path, false));
    if (error || !out.file) out.error = fmt::format("cannot open '{}'", name);
#endif
    return out;
}

bool read_exact(std::FILE* f, std::span<std::byte> into) {
    return into.empty() || std::fread(into.data(), 1, into.size(), f) == into.size();
}

bool at_end(std::FILE* f) { return std::fgetc(f) == EOF; }

std::vector<std::byte> read_regular(const std::filesystem::path& path, std::uint64_t max_bytes, const std::function<void(std::string)>& fail) {
    opened_file f = open_regular(path);
    if (!f.error.empty()) fail(f.error);
    if (f.size > max_bytes)
        fail(fmt::format("'{}' holds {} bytes; dmlref reads at most {} bytes here", path.string(), f.size, max_bytes));
    std::vector<std::byte> bytes(static_cast<std::size_t>(f.size));
    if (!read_exact(f.file.get(), bytes) || !at_end(f.file.get()))
        fail(fmt::format("'{}' changed size while it was read", path.string()));
    return bytes;
}

path_rule make_path_rule(const std::filesystem::path& folder, bool allow_outside, const at& where) {
    path_rule rule;
    rule.folder = folder;
    rule.allow_outside = allow_outside;
    if (!rule.allow_outside) {
        std::error_code error;
        rule.canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(folder.empty() ? "." : folder, error), error);
        if (error) where.fail(fmt::format("cannot resolve the model's folder '{}': {}", folder.string(), error.message()));
    }
    return rule;
}

std::filesystem::path model_path(const path_rule& rule, const std::string& text, const at& where) {
    if (text.empty()) where.fail("is empty");
    if (text.find('\0') != std::string::npos) where.fail("contains a NUL character");
    const std::filesystem::path path = rule.folder / text;
    if (rule.allow_outside) return path;
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
    if (error) where.fail(fmt::format("cannot resolve '{}': {}", text, error.message()));
    const std::filesystem::path relative = resolved.lexically_relative(rule.canonical);
    if (relative.empty() || *relative.begin() == "..")
        where.fail(fmt::format("'{}' resolves to '{}', outside the model's folder '{}' (dmlref run --allow-outside-paths allows it)",
                               text, resolved.string(), rule.canonical.string()));
    return path;
}

void check_write_target(const std::filesystem::path& target, const at& where) {
    std::error_code error;
    const auto status = std::filesystem::symlink_status(target, error);
    if (std::filesystem::is_symlink(status))
        where.fail(fmt::format("'{}' is a symbolic link; dmlref does not write through links", target.string()));
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        where.fail(fmt::format("'{}' exists and is not a regular file (a folder, device, FIFO or socket); dmlref replaces only "
                               "regular files",
                               target.string()));
}

npy::header read_npy_header(std::FILE* f, std::uint64_t file_size, const std::filesystem::path& path, const at& where) {
    std::vector<std::byte> start(12);
    const std::size_t first = static_cast<std::size_t>(std::min<std::uint64_t>(12, file_size));
    start.resize(first);
    if (!read_exact(f, start)) where.fail(fmt::format("cannot read '{}'", path.string()));
    const std::uint64_t needed = npy::header_bytes_needed(start);
    if (start.size() >= 12 && needed <= std::min(file_size, npy::max_header_bytes + 12)) {
        start.resize(static_cast<std::size_t>(needed));
        if (!read_exact(f, std::span(start).subspan(12))) where.fail(fmt::format("cannot read '{}'", path.string()));
    }
    try {
        return npy::parse_header(start, path.string());
    } catch (const validation_error& e) {
        where.fail(e.what());
    }
}

} // namespace dmlref::model::internal

namespace dmlref::model {

std::vector<std::byte> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
    return internal::read_regular(path, max_bytes, [&](std::string what) { throw validation_error(std::move(what)); });
}

} // namespace dmlref::model
