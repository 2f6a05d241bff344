// cmd_devices.cpp — `leanattn devices`: the GPUs in data/devices, with the numbers plans and simulations use.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "data_catalog.hpp"

namespace leanattn::app {

int devices_main(const Args& args) {
    std::string format = "text", output;
    po::options_description desc("flags");
    desc.add_options()("format", po::value(&format)->default_value(format), "text|json")("output,o", po::value(&output), "write to FILE");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn devices [--format text|json]",
                       "Lists the devices in " + data_dir().string() + "/devices. Use a name with --device, or pass\n"
                       "--device path/to/your.json (same keys; see data/devices/README.md). A GPU whose CUDA name holds one of a\n"
                       "file's cuda_names (\"describes\") is that file's: `cuda` commands and library plans on it read that file\n"
                       "unless told otherwise (else h100-sxm).")) {
        return exit_ok;
    }
    if (format != "text" && format != "json") throw InputError("--format " + format, "expected text or json");
    std::vector<std::string> refused;
    const std::vector<DeviceSpec> devices = list_devices(refused);
    for (const std::string& why : refused) std::cerr << "warning: skipped " << why << "\n";
    write_output(output, [&](std::ostream& out) {
        if (format == "json") {
            nlohmann::ordered_json list = nlohmann::ordered_json::array();
            for (const DeviceSpec& d : devices) {
                list.push_back({{"name", d.name}, {"description", d.description}, {"sms", d.sms}, {"ctas_per_sm", d.ctas_per_sm},
                                {"resident_ctas", d.resident_ctas()}, {"hbm_bandwidth_gb_per_s", d.timing.hbm_bandwidth_gb_per_s},
                                {"cuda_names", d.cuda_names}});
            }
            out << nlohmann::ordered_json{{"devices", list}}.dump(2) << "\n";
            return;
        }
        out << std::left << std::setw(14) << "device" << std::right << std::setw(6) << "SMs" << std::setw(9) << "CTAs/SM"
            << std::setw(10) << "resident" << std::setw(11) << "HBM GB/s" << "  description\n";
        for (const DeviceSpec& d : devices) {
            out << std::left << std::setw(14) << d.name << std::right << std::setw(6) << d.sms << std::setw(9) << d.ctas_per_sm
                << std::setw(10) << d.resident_ctas() << std::setw(11) << d.timing.hbm_bandwidth_gb_per_s << "  " << d.description;
            std::string names;
            for (const std::string& n : d.cuda_names) names += (names.empty() ? "" : ", ") + ("\"" + n + "\"");
            if (!names.empty()) out << " [describes CUDA's " << names << "]";
            out << "\n";
        }
    });
    return exit_ok;
}

}  // namespace leanattn::app
