// cmd_models.cpp — `leanattn models`: attention shapes of real models, for --model.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "commands.hpp"
#include "core/input_error.hpp"
#include "data_catalog.hpp"

namespace leanattn::app {

int models_main(const Args& args) {
    std::string format = "text", output;
    po::options_description desc("flags");
    desc.add_options()("format", po::value(&format)->default_value(format), "text|json")("output,o", po::value(&output), "write to FILE");
    po::variables_map vm;
    if (!parse_or_help(args, desc, vm, "leanattn models [--format text|json]",
                       "Lists the model attention shapes in " + data_dir().string() + "/models.\n"
                       "--model NAME fills --heads, --kv-heads and --head-dim; explicit flags win.")) {
        return exit_ok;
    }
    if (format != "text" && format != "json") throw InputError("--format " + format, "expected text or json");
    std::vector<std::string> refused;
    const std::vector<ModelShape> models = list_models(refused);
    for (const std::string& why : refused) std::cerr << "warning: skipped " << why << "\n";
    write_output(output, [&](std::ostream& out) {
        if (format == "json") {
            nlohmann::ordered_json list = nlohmann::ordered_json::array();
            for (const ModelShape& m : models) {
                list.push_back({{"name", m.name}, {"description", m.description}, {"q_heads", m.q_heads}, {"kv_heads", m.kv_heads},
                                {"head_dim", m.head_dim}, {"group", m.q_heads / m.kv_heads}, {"hidden_size", m.hidden_size}, {"layers", m.layers}});
            }
            out << nlohmann::ordered_json{{"models", list}}.dump(2) << "\n";
            return;
        }
        out << std::left << std::setw(15) << "model" << std::right << std::setw(8) << "q-heads" << std::setw(9) << "kv-heads"
            << std::setw(7) << "group" << std::setw(9) << "head-dim" << std::setw(8) << "layers" << "  description\n";
        for (const ModelShape& m : models) {
            out << std::left << std::setw(15) << m.name << std::right << std::setw(8) << m.q_heads << std::setw(9) << m.kv_heads
                << std::setw(7) << m.q_heads / m.kv_heads << std::setw(9) << m.head_dim << std::setw(8) << m.layers << "  " << m.description << "\n";
        }
    });
    return exit_ok;
}

}  // namespace leanattn::app
