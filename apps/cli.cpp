#include "cli.hpp"

#include "core/input_error.hpp"

namespace leanattn::app {

bool parse_or_help(const std::vector<std::string>& args, const po::options_description& desc, po::variables_map& vm,
                   const std::string& usage, const std::string& description) {
    po::options_description all = desc;
    all.add_options()("help,h", "show this help");
    po::store(po::command_line_parser(args).options(all).run(), vm);
    if (vm.count("help")) {
        std::cout << "usage: " << usage << "\n\n" << description << "\n\n" << all << "\n";
        return false;
    }
    po::notify(vm);
    return true;
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
    if (path.empty() || path == "-") {
        write(std::cout);
        std::cout.flush();
        return;
    }
    std::ofstream out(path);
    if (!out) throw InputError("-o " + path, "cannot open the file for writing");
    write(out);
    if (!out) throw InputError("-o " + path, "writing the file failed");
}

void print_error(const std::string& message) { std::cerr << "error: " << message << "\n"; }

}  // namespace leanattn::app
