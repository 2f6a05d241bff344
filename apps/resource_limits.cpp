#include "resource_limits.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

#include "core/input_error.hpp"

namespace leanattn::app {

namespace {

// A number with an optional suffix scaled by `unit` per step (k, M, G, T, P); doubles so that "1.5G" and
// "3e11" read; refused unless finite, ≥ 0 and below 2^63.
std::optional<std::int64_t> parse_scaled(const std::string& text, double unit) {
    // Digits first: stod alone would also take " 5", "+5", "inf", "nan" and hexadecimal "0x10".
    if (text.empty() || text.size() > 64 || !std::isdigit(static_cast<unsigned char>(text[0])) || text.find_first_of("xXnN") != std::string::npos) {
        return std::nullopt;
    }
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    std::string suffix = text.substr(used);
    if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b') && unit != 1.0) suffix.pop_back();
    const std::string steps = "kMGTP";
    if (suffix.size() == 1) {
        const std::size_t at = steps.find(suffix[0] == 'K' ? 'k' : suffix[0]);
        if (at == std::string::npos || unit == 1.0) return std::nullopt;
        value *= std::pow(unit, static_cast<double>(at + 1));
    } else if (!suffix.empty()) {
        return std::nullopt;
    }
    if (!std::isfinite(value) || value < 0 || value >= 9.2e18) return std::nullopt;
    return static_cast<std::int64_t>(value);
}

// A key of /proc/meminfo in bytes ("MemAvailable:   123456 kB").
std::optional<std::int64_t> meminfo(const std::string& key) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key + ":", 0) != 0) continue;
        std::istringstream fields(line.substr(key.size() + 1));
        std::int64_t kb = 0;
        if (fields >> kb) return kb * 1024;
    }
    return std::nullopt;
}

std::optional<std::int64_t> file_number(const char* path) {
    std::ifstream in(path);
    std::int64_t value = 0;
    if (in >> value) return value;  // "max" fails here: no limit
    return std::nullopt;
}

// cgroup v2: memory.max less memory.current.
std::optional<std::int64_t> cgroup_headroom() {
    const auto max = file_number("/sys/fs/cgroup/memory.max");
    const auto current = file_number("/sys/fs/cgroup/memory.current");
    if (!max || !current) return std::nullopt;
    return std::max<std::int64_t>(*max - *current, 0);
}

std::optional<std::int64_t> address_space_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
    return static_cast<std::int64_t>(std::min<rlim_t>(limit.rlim_cur, static_cast<rlim_t>(INT64_MAX)));
}

std::string override_hint(const char* variable, const std::string& flag) {
    return "set " + std::string(variable) + (flag.empty() ? "" : " or " + flag) + " to change it";
}

}  // namespace

std::optional<std::int64_t> parse_byte_size(const std::string& text) { return parse_scaled(text, 1024.0); }

std::optional<std::int64_t> parse_count(const std::string& text) { return parse_scaled(text, 1.0); }

std::optional<std::int64_t> available_memory_bytes() {
    std::optional<std::int64_t> least;
    for (const auto& source : {meminfo("MemAvailable"), cgroup_headroom(), address_space_limit()}) {
        if (source) least = least ? std::min(*least, *source) : *source;
    }
    return least;
}

CostLimits resource_limits(const std::string& memory_flag, const std::string& work_flag) {
    CostLimits limits;
    if (const char* env = std::getenv("LEANATTN_MAX_MEMORY"); env && *env) {
        const auto bytes = parse_byte_size(env);
        if (!bytes) throw InputError("LEANATTN_MAX_MEMORY=" + std::string(env), "expected a size such as 4096, 512M or 16G");
        limits.max_memory_bytes = *bytes;
        limits.memory_source = "LEANATTN_MAX_MEMORY" + (memory_flag.empty() ? std::string() : "; " + memory_flag + " overrides it");
    } else {
        // Half: the other half is for the rest of the machine, and for what the estimate does not count
        // (the program itself, allocator slack). 4 GiB when the machine cannot say.
        const std::int64_t available = available_memory_bytes().value_or(std::int64_t{8} << 30);
        limits.max_memory_bytes = available / 2;
        limits.memory_source = "half the memory available now; " + override_hint("LEANATTN_MAX_MEMORY", memory_flag);
    }
    limits.max_work = work_limit();
    const bool from_env = std::getenv("LEANATTN_MAX_WORK") != nullptr && *std::getenv("LEANATTN_MAX_WORK") != '\0';
    limits.work_source = from_env ? "LEANATTN_MAX_WORK" + (work_flag.empty() ? std::string() : "; " + work_flag + " overrides it")
                                  : "about five minutes of one core; " + override_hint("LEANATTN_MAX_WORK", work_flag);
    return limits;
}

std::int64_t work_limit() {
    const char* env = std::getenv("LEANATTN_MAX_WORK");
    if (env == nullptr || *env == '\0') return default_max_work;
    const auto work = parse_count(env);
    if (!work) throw InputError("LEANATTN_MAX_WORK=" + std::string(env), "expected a count of steps such as 1e9 (about a second)");
    return *work;
}

std::string work_limit_source() {
    const char* env = std::getenv("LEANATTN_MAX_WORK");
    return env != nullptr && *env != '\0' ? "LEANATTN_MAX_WORK" : "about five minutes of one core; set LEANATTN_MAX_WORK to change it";
}

}  // namespace leanattn::app
