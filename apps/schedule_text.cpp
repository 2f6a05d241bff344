#include "schedule_text.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace leanattn::app {

namespace {

constexpr std::int64_t max_timeline_rows = 40;
constexpr std::int64_t bar_width = 30;  // characters for the longest CTA's LeanTiles

std::string plural(std::int64_t n, const std::string& word) {
    const bool sibilant = !word.empty() && (word.back() == 'h' || word.back() == 's');
    return std::to_string(n) + " " + word + (n == 1 ? "" : sibilant ? "es" : "s");
}

std::string segment_label(const Problem& p, const Segment& s) {
    return output_label(p, s.output) + "[" + std::to_string(s.begin) + "," + std::to_string(s.end) + ")" + (s.host ? "*" : "");
}

// "CTA1,2" for two peers, "CTA3-7" for a longer consecutive run (stream-k peers always are).
std::string cta_list(const std::vector<std::int64_t>& ctas, std::size_t from) {
    const std::size_t n = ctas.size() - from;
    if (n > 2 && ctas.back() - ctas[from] == static_cast<std::int64_t>(n) - 1) {
        return "CTA" + std::to_string(ctas[from]) + "-" + std::to_string(ctas.back());
    }
    std::string out;
    for (std::size_t i = from; i < ctas.size(); ++i) out += (i == from ? "CTA" : ",") + std::to_string(ctas[i]);
    return out;
}

void write_header(std::ostream& out, const Schedule& s) {
    const Problem& p = s.problem;
    out << strategy_name(s.strategy) << " on " << s.device.name << " (" << s.device.sms << " SMs x " << s.device.ctas_per_sm
        << " CTA/SM): grid " << s.grid << ", " << plural(s.launches, "launch") << ", " << s.total_tiles << " LeanTiles";
    if (s.strategy == Strategy::fixed_split) out << ", " << plural(s.splits, "split") << " of up to " << plural(s.chunk, "LeanTile");
    if (s.strategy == Strategy::stream_k) out << "\nrule " << stream_k_rule_name(s.stream_k_rule) << ", snap " << plural(s.snap, "LeanTile");
    if (s.narrow_streams) out << "\nleanattn's GPU kernel reads this plan's K and V with half its warps (narrow streams: few SMs, each one output)";
    out << "\nproblem: batch " << p.batch << ", " << p.q_heads << " q-heads / " << p.kv_heads << " kv-heads, head-dim " << p.head_dim
        << ", q-len " << p.q_len << ", tile " << p.tile << ", ctx ";
    const auto [lo, hi] = std::minmax_element(p.ctx.begin(), p.ctx.end());
    if (*lo == *hi) out << *lo; else out << *lo << ".." << *hi << " (ragged, total " << p.total_ctx() << ")";
    if (p.row_blocks() > 1) {
        out << "\n" << p.rows() << " query rows per KV head, more than an output tile's " << p.max_tile_rows() << ": " << p.row_blocks()
            << " row blocks of up to " << p.block_rows() << " (r0 .. r" << p.row_blocks() - 1 << "), each reading the KV head's K and V";
    }
    out << "\n\n";
}

// Notes at the end of a CTA's row: what it reduces and where its partial goes.
std::string row_notes(const Schedule& s, const ScheduleTable& t, const CtaRow& row) {
    std::string notes;
    for (const Segment& seg : row.segments) {
        const OutputRow& o = t.outputs[seg.output];
        std::string note;
        if (seg.host && o.ctas.size() > 1) {
            note = s.fused_reduction() ? "reduces " + output_label(s.problem, seg.output) + " <- " + cta_list(o.ctas, 1) : "";
        } else if (!seg.host) {
            note = s.fused_reduction() ? "partial -> CTA" + std::to_string(o.host_cta) : "";
        }
        if (!note.empty()) notes += (notes.empty() ? "" : "; ") + note;
    }
    if (!s.fused_reduction() && s.launches > 1 && !row.segments.empty()) notes = "partial -> reduce launch";
    if (row.segments.empty()) notes = s.strategy == Strategy::stream_k ? "empty range: exits at once" : "empty chunk: exits at once";
    return notes;
}

void write_timeline(std::ostream& out, const Schedule& s, const ScheduleTable& t) {
    std::int64_t most = 1;
    for (const CtaRow& row : t.ctas) most = std::max(most, row.tiles);
    const double cols_per_tile = static_cast<double>(bar_width) / static_cast<double>(most);
    out << "         LeanTiles in the order each CTA does them; * = host (does the output's first LeanTile, reduces it)\n";
    for (const CtaRow& row : t.ctas) {
        std::ostringstream label;
        label << "SM" << row.sm << " CTA" << row.cta;
        std::string line = label.str();
        line.resize(10, ' ');
        line += "|";
        std::int64_t done = 0;
        for (const Segment& seg : row.segments) {
            const auto from = static_cast<std::int64_t>(static_cast<double>(done) * cols_per_tile + 0.5);
            done += seg.tiles();
            const auto to = static_cast<std::int64_t>(static_cast<double>(done) * cols_per_tile + 0.5);
            const std::int64_t width = std::max<std::int64_t>(to - from - 1, 1);
            // The full label, else just the output's name, else only the fill character.
            std::string cell = segment_label(s.problem, seg);
            if (static_cast<std::int64_t>(cell.size()) > width) cell = output_label(s.problem, seg.output) + (seg.host ? "*" : "");
            if (static_cast<std::int64_t>(cell.size()) > width) cell.clear();
            cell.resize(static_cast<std::size_t>(width), seg.host ? '=' : '-');
            line += cell + "|";
        }
        line.resize(11 + bar_width + 1, ' ');
        out << line << " " << row_notes(s, t, row) << "\n";
    }
    if (s.launches > 1) out << "then a reduce launch: for each output, its host's partial merged with those of its other splits\n";
}

template <typename Map>
void write_histogram(std::ostream& out, const char* title, const Map& counts, const char* unit) {
    out << title;
    std::size_t shown = 0;
    for (const auto& [value, count] : counts) {
        if (shown++ == 8) {
            out << "  ...";
            break;
        }
        out << "  " << value << " " << unit << ": " << count;
    }
    out << "\n";
}

void write_summary(std::ostream& out, const Schedule& s, const ScheduleTable& t) {
    std::map<std::int64_t, std::int64_t> tiles_per_cta, segments_per_cta, ctas_per_output;
    for (const CtaRow& row : t.ctas) {
        ++tiles_per_cta[row.tiles];
        ++segments_per_cta[static_cast<std::int64_t>(row.segments.size())];
    }
    std::int64_t waiting_hosts = 0, partials = 0;
    for (const OutputRow& o : t.outputs) {
        ++ctas_per_output[static_cast<std::int64_t>(o.ctas.size())];
        partials += static_cast<std::int64_t>(o.ctas.size()) - 1;
        waiting_hosts += o.ctas.size() > 1 ? 1 : 0;
    }
    const std::int64_t resident = s.device.resident_ctas();
    const std::int64_t waves = (s.grid + resident - 1) / resident;
    write_histogram(out, "LeanTiles per CTA:", tiles_per_cta, "tiles");
    write_histogram(out, "segments per CTA: ", segments_per_cta, "seg");
    write_histogram(out, "CTAs per output:  ", ctas_per_output, "CTAs");
    out << "outputs: " << t.outputs.size() << ", split outputs: " << waiting_hosts << ", partials merged: " << partials
        << (s.fused_reduction() ? " (in the same launch, by host CTAs)" : s.launches > 1 ? " (by a second launch)" : "") << "\n";
    out << "waves: " << s.grid << " CTAs on " << resident << " resident slots = " << waves << " wave" << (waves == 1 ? "" : "s");
    if (s.grid % resident != 0 && waves > 0) {
        const std::int64_t percent = (100 * (s.grid % resident) + resident / 2) / resident;
        out << ", the last " << (percent == 0 ? std::string("under 1") : percent == 100 ? std::string("over 99") : std::to_string(percent)) << "% full";
    }
    out << "\n";
}

}  // namespace

std::string output_label(const Problem& p, std::int64_t output) {
    std::string head = "h" + std::to_string(p.kv_head_of(output));
    if (p.row_blocks() > 1) head += "r" + std::to_string(p.first_row_of(output) / p.block_rows());  // its row block
    return p.batch == 1 ? head : "b" + std::to_string(p.request_of(output)) + head;
}

void write_schedule_text(std::ostream& out, const Schedule& s, const ScheduleTable& t) {
    write_header(out, s);
    std::size_t most_segments = 0;
    for (const CtaRow& row : t.ctas) most_segments = std::max(most_segments, row.segments.size());
    if (s.grid <= max_timeline_rows && most_segments <= 3) write_timeline(out, s, t);
    else write_summary(out, s, t);
}

}  // namespace leanattn::app
