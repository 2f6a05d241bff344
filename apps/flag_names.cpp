#include "flag_names.hpp"

#include <string_view>
#include <utility>

namespace leanattn::app {

namespace {

// API parameter → command-line flag. A device's sms come from --device (a name or a file).
constexpr std::pair<std::string_view, std::string_view> flags[] = {
    {"batch", "--batch"},         {"q_heads", "--heads"},       {"kv_heads", "--kv-heads"},
    {"head_dim", "--head-dim"},   {"q_len", "--q-len"},         {"tile", "--tile"},
    {"tile_rows", "--tile-rows"},
    {"ctx", "--ctx"},             {"splits", "--splits"},       {"grid", "--grid"},
    {"snap", "--snap"},           {"stream_k_rule", "--stream-k-rule"}, {"ctas_per_sm", "--ctas-per-sm"},
    {"sms", "--device sms"},      {"block_size", "--block-size"}, {"threads", "--threads"},
    {"strategy", "--strategy"},   {"dtype", "--dtype"},         {"q dtype", "--dtype"},
    {"q", "--heads/--kv-heads"},     {"device", "--device"},      {"model", "--model"},
    {"kernel", "--kernel"},       {"trace", "--trace"},         {"measured", "--measured/--check"},
};

}  // namespace

std::string flag_of(const std::string& parameter) {
    for (const auto& [name, flag] : flags) {
        if (parameter == name) return std::string(flag);
    }
    return parameter;
}

std::string cli_message(const InputError& e) {
    if (!e.parameters().empty()) {
        std::vector<NamedValue> renamed = e.parameters();
        for (NamedValue& p : renamed) p.parameter = flag_of(p.parameter);
        return InputError::spell(renamed) + " (" + e.reason() + ")";
    }
    // A free-form subject such as "q_len 2" (the CUDA side's checks): translate a leading parameter name,
    // the longest that matches, when it stands alone or before a space.
    const std::string& s = e.subject();
    std::string_view best;
    for (const auto& [name, flag] : flags) {
        const bool matches = s.rfind(name, 0) == 0 && (s.size() == name.size() || s[name.size()] == ' ');
        if (matches && name.size() > best.size()) best = name;
    }
    if (best.empty()) return e.what();
    return flag_of(std::string(best)) + s.substr(best.size()) + " (" + e.reason() + ")";
}

}  // namespace leanattn::app
