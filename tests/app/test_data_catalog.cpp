// Data files are parsed once per process while their text stays the same: what a reload must still see.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>

#include "core/input_error.hpp"
#include "data_catalog.hpp"

using namespace leanattn;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::trunc) << text; }

// The h100-sxm file with its SM count replaced by a three-digit `sms`: the same size whatever the count.
std::string with_sms(const std::string& text, int sms) {
    std::string t = text;
    const std::size_t at = t.find("\"sms\": 132");
    REQUIRE(at != std::string::npos);
    t.replace(at, 10, "\"sms\": " + std::to_string(sms));
    return t;
}

}  // namespace

TEST_CASE("a device file rewritten in place to the same size is read anew") {
    const std::string text = slurp(std::string(LEANATTN_SOURCE_DIR) + "/data/devices/h100-sxm.json");
    const std::string path = (std::filesystem::temp_directory_path() / "leanattn-reloaded-device.json").string();
    write(path, with_sms(text, 132));
    CHECK(app::load_device(path).sms == 132);
    CHECK(app::load_device(path).sms == 132);  // kept: the same text
    write(path, with_sms(text, 114));
    CHECK(app::load_device(path).sms == 114);
    write(path, with_sms(text, 132));
    CHECK(app::load_device(path).sms == 132);
}

TEST_CASE("the built-in DeviceSpec is data/devices/h100-sxm.json's: a plan made without a device file is the file's plan") {
    // The C++ API's callers (cuda::live_device's default timing, a CPU plan with no device named) plan with the
    // built-in figures; the CLI and the library read the file. The two must plan alike.
    const DeviceSpec file = app::load_device("h100-sxm");
    const DeviceSpec built_in;
    CHECK(built_in.name == file.name);
    CHECK(built_in.sms == file.sms);
    CHECK(built_in.ctas_per_sm == file.ctas_per_sm);
    CHECK(built_in.timing == file.timing);
}

TEST_CASE("a data file broken after it was parsed is refused, not served from what was parsed before") {
    const std::string text = slurp(std::string(LEANATTN_SOURCE_DIR) + "/data/kernels/leanattn-h100.json");
    const std::string path = (std::filesystem::temp_directory_path() / "leanattn-broken-kernel.json").string();
    const DeviceSpec device = app::load_device("h100-sxm");
    write(path, text);
    const sim::KernelModel good = app::load_kernel(path, device);
    CHECK(app::load_kernel(path, device) == good);
    write(path, text.substr(0, text.size() / 2));  // cut mid-object
    CHECK_THROWS_AS(app::load_kernel(path, device), InputError);
    std::filesystem::remove(path);
    CHECK_THROWS_WITH(app::load_kernel(path, device), Catch::Contains("no such file"));
    write(path, text);
    CHECK(app::load_kernel(path, device) == good);
    std::filesystem::remove(path);
}

TEST_CASE("a folder or a FIFO named as a device file is refused before it is opened") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "leanattn-folder.json";
    std::filesystem::create_directories(dir);
    CHECK_THROWS_WITH(app::load_device(dir.string()), Catch::Contains("is a folder"));
    const std::filesystem::path fifo = std::filesystem::temp_directory_path() / "leanattn-fifo.json";
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(app::load_device(fifo.string()), Catch::Contains("not a regular file"));
    std::filesystem::remove(fifo);
}

TEST_CASE("a name the file system cannot look up (too long) is refused as bad input naming the flag, not thrown as an internal error") {
    const std::string long_name(300, 'a');  // longer than a file name may be
    CHECK_THROWS_AS(app::load_device(long_name), InputError);
    CHECK_THROWS_WITH(app::load_device(long_name), Catch::Contains("cannot be looked up") && Catch::Contains("name too long"));
    CHECK_THROWS_AS(app::load_model(long_name), InputError);
    CHECK_THROWS_AS(app::load_kernel(long_name, app::load_device("h100-sxm")), InputError);
}
