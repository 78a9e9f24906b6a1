// The first pass over a model's text (model_first_pass.hpp).
#include "model_first_pass.hpp"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dmlref::model::internal {
namespace {

/// The SAX handler of first_pass.
class json_checker {
public:
    explicit json_checker(at root) : root_(std::move(root)) {}

    json_counts counts;

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(json::number_integer_t) { return value(); }
    bool number_unsigned(json::number_unsigned_t) { return value(); }
    bool number_float(json::number_float_t, const std::string&) { return value(); }
    bool string(std::string& s) {
        ++counts.strings;
        counts.string_bytes += s.size();
        return value();
    }
    bool binary(json::binary_t&) { return value(); }
    bool start_object(std::size_t) {
        value();
        open(false);
        return true;
    }
    bool key(std::string& k) {
        frame& f = frames_.back();
        f.key = k;
        f.has_key = true;
        if (!f.keys.insert(k).second)
            here(false).fail(fmt::format("duplicate key '{}' in one object (JSON readers keep only one of them)", k));
        ++counts.keys;
        counts.key_bytes += k.size();
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t) {
        value();
        open(true);
        return true;
    }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        std::string what = e.what();
        if (const auto end = what.find("] "); what.starts_with("[json.exception.") && end != std::string::npos) what.erase(0, end + 2);
        here(true).fail("not valid JSON: " + what);
    }

private:
    struct frame {
        bool array = false;
        std::size_t next = 0; ///< arrays: the index of the next element
        bool has_key = false;
        std::string key;      ///< objects: the last key read
        std::set<std::string, std::less<>> keys;
    };

    bool value() {
        ++counts.values;
        if (!frames_.empty() && frames_.back().array) ++frames_.back().next;
        return true;
    }
    void open(bool array) {
        if (frames_.size() >= max_json_depth)
            here(false).fail(fmt::format("nests deeper than {} levels of arrays and objects (DxDispatch's models nest 6)", max_json_depth));
        frames_.push_back(frame{array, 0, false, {}, {}});
    }
    bool close() {
        frames_.pop_back();
        return true;
    }
    /// The path of the value being read: `pending` when its first token has not been reported yet.
    at here(bool pending) const {
        at where = root_;
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            const frame& f = frames_[i];
            const bool top = i + 1 == frames_.size();
            if (f.array) {
                const std::size_t index = top && pending ? f.next : f.next - (f.next > 0 ? 1 : 0);
                where = where[index];
            } else if (f.has_key) {
                where = where / f.key;
            }
        }
        return where;
    }

    at root_;
    std::vector<frame> frames_;
};

} // namespace

json_counts first_pass(std::string_view json_text, const at& root) {
    json_checker checker(root);
    json::sax_parse(json_text.begin(), json_text.end(), &checker, json::input_format_t::json, /*strict=*/true,
                    /*ignore_comments=*/true);
    return checker.counts;
}

json parse_document(std::string_view json_text, const at& root) {
    try {
        return json::parse(json_text.begin(), json_text.end(), nullptr, true, /*ignore_comments=*/true);
    } catch (const json::exception& e) { // the first pass refused what this would
        root.fail(fmt::format("not valid JSON: {}", e.what()));
    }
}

} // namespace dmlref::model::internal
