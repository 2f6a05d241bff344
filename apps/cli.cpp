#include "cli.hpp"

#include <new>
#include <sstream>
#include <utility>

#include "core/input_error.hpp"
#include "input_file.hpp"
#include "output_file.hpp"

namespace leanattn::app {

bool parse_or_help(const std::vector<std::string>& args, const po::options_description& desc, po::variables_map& vm,
                   const std::string& usage, const std::string& description) {
    po::options_description all = desc;
    all.add_options()("help,h", "show this help");
    // No abbreviations (a new flag could change what one means) and no stray words: `schedule --ctx 100 200`
    // must not silently drop the 200.
    const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    const po::parsed_options parsed = po::command_line_parser(args).options(all).style(style).run();
    const std::vector<std::string> stray = po::collect_unrecognized(parsed.options, po::include_positional);
    if (!stray.empty()) throw InputError("'" + stray.front() + "'", "an argument that is no flag's value; see --help (values go after their flag, lists are comma-separated)");
    po::store(parsed, vm);
    if (vm.count("help")) {
        std::ostringstream text;
        text << "usage: " << usage << "\n\n" << description << "\n\n" << all << "\n";
        commit_output("", text.str());  // a failed write (a full disk) is an error, as any output's
        return false;
    }
    po::notify(vm);
    return true;
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
    check_output_target(path);
    std::ostringstream text;
    write(text);
    // A stream swallows its buffer's bad_alloc and sets badbit: the text would be cut short, and written.
    if (!text) throw std::bad_alloc();
    commit_output(path, std::move(text).str());
}

void print_error(const std::string& message) { std::cerr << "error: " << message << "\n"; }

std::vector<std::string> split_words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

std::vector<std::string> read_problem_lines(const std::string& path, const std::string& flag) {
    const std::unique_ptr<std::istream> file = open_input_file(path, flag);
    std::vector<std::string> lines;
    for (std::string line; std::getline(*file, line);) {
        const std::string text = line.substr(0, line.find('#'));
        if (!split_words(text).empty()) lines.push_back(text);
    }
    if (lines.empty()) throw InputError(flag + " " + path, "holds no problem line");
    return lines;
}

}  // namespace leanattn::app
