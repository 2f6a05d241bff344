// schedule_svg.cpp — see schedule_svg.hpp. Three steps: place every CTA on the idealised time axis
// (place), fix the geometry (Frame), then draw background, segments, merges, axis and legend.
#include "schedule_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "plot_axis.hpp"
#include "request_legend.hpp"
#include "schedule_text.hpp"
#include "svg.hpp"

namespace leanattn::app {

namespace {

constexpr double width = 1200, left = 100, right = 28, top = 88;
// Merges are drawn sized by the partials they merge, not to scale: a merge reads d floats and two statistics
// per partial while a LeanTile streams 2 × tile × d keys and values, so to scale it would be invisible. A
// quarter LeanTile per partial, shrunk where a host merges so many that the biggest merge would pass a fifth
// of the busiest slot (long ragged requests spread over dozens of CTAs).
constexpr double max_merge_tiles = 0.25, max_merge_share = 0.2;
constexpr double min_merge_px = 3;  // and never narrower than this, so that a merge shows on the biggest plans (the legend says so)
// Past this many segments tooltips would push the file to several MB; the picture is a texture by then.
constexpr std::size_t max_tooltip_segments = 6000;
constexpr std::int64_t max_arrow_grid = 32;  // peer → host arrows only where they can be followed by eye

// Idealised time of one CTA, in LeanTiles from the first launch.
struct CtaTimes {
    double start = 0, end = 0;           // its LeanTiles
    double partial_ready = 0;            // end of its first segment: as a peer, its partial is stored then
    double wait_end = 0, merge_end = 0;  // as a stream-k host: waits for its last peer's partial, then merges
    std::int64_t peers = 0;              // partials it merges
};

struct Times {
    std::vector<CtaTimes> ctas;
    double launch_end = 0;     // end of the (first) launch, merges included
    double busiest = 0;        // LeanTiles of the busiest slot: the plan's makespan without merges
    double reduce_launch = 0;  // fixed-split's second launch; 0 if none
    double merge_tiles = max_merge_tiles;  // drawn length of merging one partial
    std::vector<std::pair<double, double>> reduce;  // (outputs) its reduce CTA's merge in the second launch
    double span() const { return launch_end + reduce_launch; }
};

Times place(const Schedule& s, const ScheduleTable& t) {
    Times T;
    T.ctas.resize(t.ctas.size());
    const std::int64_t resident = s.device.resident_ctas();
    for (const CtaRow& row : t.ctas) {  // CTA order: the slot's earlier CTA (cta − resident) is placed already
        CtaTimes& c = T.ctas[static_cast<std::size_t>(row.cta)];
        c.start = row.cta >= resident ? T.ctas[static_cast<std::size_t>(row.cta - resident)].end : 0.0;
        c.end = c.start + static_cast<double>(row.tiles);
        c.partial_ready = c.start + (row.segments.empty() ? 0.0 : static_cast<double>(row.segments.front().tiles()));
        c.wait_end = c.merge_end = c.end;
        T.busiest = std::max(T.busiest, c.end);
    }
    std::size_t most_partials = 1;
    for (const OutputRow& o : t.outputs) most_partials = std::max(most_partials, o.ctas.size());
    T.merge_tiles = std::min(max_merge_tiles, max_merge_share * T.busiest / static_cast<double>(std::max<std::size_t>(most_partials - 1, 1)));
    // stream-k merges in the launch. Its grid never exceeds the resident slots, so every CTA starts at 0 and a
    // host (lower CTA id) holds at least as many LeanTiles as any peer: in this idealised time no host waits.
    // The wait is still computed, not assumed, so the picture stays honest if the plan ever changes.
    if (s.fused_reduction()) {
        for (const CtaRow& row : t.ctas) {
            CtaTimes& c = T.ctas[static_cast<std::size_t>(row.cta)];
            for (const Segment& seg : row.segments) {
                const OutputRow& o = t.outputs[static_cast<std::size_t>(seg.output)];
                if (!seg.host || o.ctas.size() < 2) continue;
                for (std::size_t i = 1; i < o.ctas.size(); ++i) c.wait_end = std::max(c.wait_end, T.ctas[static_cast<std::size_t>(o.ctas[i])].partial_ready);
                c.peers += static_cast<std::int64_t>(o.ctas.size()) - 1;
            }
            c.merge_end = c.wait_end + T.merge_tiles * static_cast<double>(c.peers);
        }
    }
    for (const CtaTimes& c : T.ctas) T.launch_end = std::max(T.launch_end, c.merge_end);
    if (s.launches > 1) {  // the reduce launch: CTA o merges output o's partials; outputs fill the slots in waves
        T.reduce.resize(t.outputs.size());
        for (std::size_t o = 0; o < t.outputs.size(); ++o) {
            const std::size_t before = o - static_cast<std::size_t>(resident);  // the slot's earlier reduce CTA
            const double start = o >= static_cast<std::size_t>(resident) ? T.reduce[before].second : T.launch_end;
            T.reduce[o] = {start, start + T.merge_tiles * static_cast<double>(t.outputs[o].ctas.size() - 1)};
            T.reduce_launch = std::max(T.reduce_launch, T.reduce[o].second - T.launch_end);
        }
    }
    return T;
}

// A device of more SMs than this (no GPU has 1,024; device files may say up to 65,536) gets rows only for the SMs its
// plan's CTAs land on, the first `grid` of them: a 4-CTA plan on 65,536 SMs drew 6 MB of idle rows.
constexpr std::int64_t max_idle_rows_sms = 1024;

// Where things go: rows of lanes, scaled so 5 SMs look like Figure 1 and 132 × 2 lanes fit a screen. Where an SM's
// lanes would be too thin to tell apart (an H100's 132 SMs × 2), each slot's lanes form a block of their own instead,
// one SM per row: lanes of unrelated requests interleaved line by line blend into hues no request has.
struct Frame {
    std::int64_t sms = 1, lanes = 1, resident = 1;
    std::int64_t drawn = 1;  // SM rows drawn: every SM's, or (max_idle_rows_sms) those the CTAs use
    double lane_h = 0, gap = 0, xs = 0;
    bool blocked = false;    // one block of SM rows per slot (lane), not the lanes of an SM side by side
    static constexpr double block_gap = 14;  // between blocks: room for a block's name
    Frame(const Schedule& s, double span) : sms(s.device.sms), lanes(s.device.ctas_per_sm), resident(s.device.resident_ctas()) {
        drawn = sms > max_idle_rows_sms ? std::clamp<std::int64_t>(s.grid, 1, sms) : sms;
        lane_h = std::clamp(600.0 / static_cast<double>(drawn * lanes), 1.0, 32.0);
        blocked = lanes > 1 && lane_h * static_cast<double>(lanes) < 8;
        gap = blocked ? 0.0 : lane_h * static_cast<double>(lanes) >= 16 ? 6.0 : (lanes > 1 ? 1.0 : 0.0);  // keeps an SM's lanes together
        xs = (width - left - right) / std::max(span, 1e-9);
    }
    double row_h() const { return blocked ? lane_h : lane_h * static_cast<double>(lanes); }  // one SM's row (in one block)
    double block_h() const { return static_cast<double>(drawn) * (row_h() + gap) - gap; }
    // A block per slot; on a made-up device whose rows are trimmed to the grid (drawn < SMs) every CTA is in slot 0.
    std::int64_t blocks() const { return blocked && drawn == sms ? lanes : 1; }
    double block_top(std::int64_t block) const { return top + static_cast<double>(block) * (block_h() + block_gap); }
    double plot_h() const { return static_cast<double>(blocks()) * (block_h() + block_gap) - block_gap; }
    double x(double tiles) const { return left + tiles * xs; }
    double sm_top(std::int64_t sm, std::int64_t block = 0) const { return block_top(block) + static_cast<double>(sm) * (row_h() + gap); }
    double lane_top(std::int64_t cta) const {
        const std::int64_t slot = cta % resident;
        if (blocked) return sm_top(slot % sms, slot / sms);
        return sm_top(slot % sms) + static_cast<double>(slot / sms) * lane_h;
    }
    double mid(std::int64_t cta) const { return lane_top(cta) + lane_h / 2; }
    bool labels() const { return lane_h >= 14; }
};

// White text on dark fills, near-black on light ones (the palette has yellows, and heads shade towards white).
std::string ink_on(const std::string& hex) {
    const Rgb c = parse_hex(hex);
    return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 150 ? "#1a1a1a" : "white";
}

double text_width(const std::string& text, double size) { return 0.58 * size * static_cast<double>(text.size()); }

// CTAs from ctas[from] on: "CTA1,2" or, for a longer consecutive run (contributors always are), "CTA3-7".
std::string cta_list(const std::vector<std::int64_t>& ctas, std::size_t from) {
    if (ctas.size() - from > 2 && ctas.back() - ctas[from] == static_cast<std::int64_t>(ctas.size() - from) - 1) {
        return "CTA" + std::to_string(ctas[from]) + "-" + std::to_string(ctas.back());
    }
    std::string out = "CTA";
    for (std::size_t i = from; i < ctas.size(); ++i) out += (i == from ? "" : ",") + std::to_string(ctas[i]);
    return out;
}

void draw_segments(SvgWriter& svg, const Schedule& s, const ScheduleTable& t, const Times& T, const Frame& f, bool tooltips) {
    for (const CtaRow& row : t.ctas) {
        const CtaTimes& c = T.ctas[static_cast<std::size_t>(row.cta)];
        const double y = f.lane_top(row.cta);
        const std::string cta = std::to_string(row.cta);
        if (row.segments.empty()) continue;  // drawn by draw_empty, over the CTA that follows at once
        double at = c.start;
        for (const Segment& seg : row.segments) {
            const double x = f.x(at), w = static_cast<double>(seg.tiles()) * f.xs;
            const std::string name = output_label(s.problem, seg.output), color = output_color(s.problem, seg.output);
            const OutputRow& o = t.outputs[static_cast<std::size_t>(seg.output)];
            std::string tip;
            if (tooltips) {
                std::ostringstream tt;
                tt << "CTA " << row.cta << " (SM " << row.sm << "): " << name << " LeanTiles [" << seg.begin << "," << seg.end << ") of " << o.tiles;
                if (seg.host) tt << "; host" << (o.ctas.size() > 1 ? ", merges " + std::to_string(o.ctas.size() - 1) + (o.ctas.size() == 2 ? " partial" : " partials") : ", alone");
                else tt << "; partial -> " << (s.fused_reduction() ? "host CTA " + std::to_string(o.host_cta) : "reduce launch");
                if (seg.finishing) tt << "; finishing";
                tip = tt.str();
            }
            const bool outline = f.lane_h >= 6;  // a white edge between segments, where there is room for it
            svg.rect(x, y + (outline ? 0.5 : 0), w, f.lane_h - (outline ? 1 : 0), color, tip,
                     "class=\"seg\" data-cta=\"" + cta + "\" data-output=\"" + std::to_string(seg.output) + "\"" +
                         (outline ? " stroke=\"white\" stroke-width=\"1\"" : ""));
            if (seg.host && f.lane_h >= 8) {  // a flag in the corner, as the legend shows
                const double a = std::min({f.lane_h * 0.45, 11.0, w});
                svg.raw("<path class=\"host\" d=\"M" + SvgWriter::num(x + 0.5) + " " + SvgWriter::num(y + 0.5) + "h" + SvgWriter::num(a) + "l" +
                        SvgWriter::num(-a) + " " + SvgWriter::num(a) + "z\" fill=\"#1a1a1a\"/>");
            } else if (seg.host) {  // thin lanes: a dark tick where the output begins
                svg.rect(x, y, std::min(1.2, w), f.lane_h, "#1a1a1a", {}, "class=\"host\"");
            }
            const std::string label = name + "[" + std::to_string(seg.begin) + "," + std::to_string(seg.end) + ")";
            if (f.labels() && w > text_width(label, 12) + 16) {
                svg.text(x + w / 2, y + f.lane_h / 2 + 4, label, 12, "middle", "fill=\"" + ink_on(color) + "\"");
            }
            at += static_cast<double>(seg.tiles());
        }
    }
}

// An empty CTA exits at once (fixed-split: a chunk past a shorter request's end; aligned stream-k: a start
// snapped onto the same output boundary as the next). It takes no time, so the next CTA of its slot starts
// at the same x: a small dashed box drawn over that CTA's start.
std::string empty_reason(const Schedule& s) {
    return s.strategy == Strategy::stream_k ? "empty range (its start snapped onto the next CTA's)" : "empty chunk";
}

void draw_empty(SvgWriter& svg, const Schedule& s, const ScheduleTable& t, const Times& T, const Frame& f, bool tooltips) {
    for (const CtaRow& row : t.ctas) {
        if (!row.segments.empty()) continue;
        const std::string cta = std::to_string(row.cta);
        svg.rect(f.x(T.ctas[static_cast<std::size_t>(row.cta)].start), f.lane_top(row.cta) + 1, 6, std::max(f.lane_h - 2, 0.5), "white",
                 tooltips ? "CTA " + cta + " (SM " + std::to_string(row.sm) + "): " + empty_reason(s) + ", exits at once" : "",
                 "class=\"empty\" data-cta=\"" + cta + "\" stroke=\"#333\" stroke-width=\"0.8\" stroke-dasharray=\"2,1.5\"");
    }
}

void draw_merges(SvgWriter& svg, const Schedule& s, const ScheduleTable& t, const Times& T, const Frame& f) {
    for (const CtaRow& row : t.ctas) {
        const CtaTimes& c = T.ctas[static_cast<std::size_t>(row.cta)];
        const double y = f.lane_top(row.cta);
        const std::string cta = std::to_string(row.cta);
        if (c.wait_end > c.end + 1e-9) {
            svg.rect(f.x(c.end), y + 0.5, (c.wait_end - c.end) * f.xs, f.lane_h - 1, waiting_fill,
                     "CTA " + cta + " waits for its peers' partials", "class=\"wait\" data-cta=\"" + cta + "\"");
        }
        if (c.peers == 0) continue;
        const OutputRow& o = t.outputs[static_cast<std::size_t>(row.segments.back().output)];
        const std::string name = output_label(s.problem, o.output), from = cta_list(o.ctas, 1);
        const double x = f.x(c.wait_end), w = std::max((c.merge_end - c.wait_end) * f.xs, min_merge_px);  // visible on a 264-lane plan too
        svg.rect(x, y + 0.5, w, f.lane_h - 1, reduce_color, "CTA " + cta + " merges " + name + "'s partials from " + from,
                 "class=\"reduce\" data-cta=\"" + cta + "\" data-peers=\"" + std::to_string(c.peers) + "\"");
        const std::string long_label = name + " \u2190 " + from, short_label = "+" + std::to_string(c.peers);
        if (f.labels() && w > text_width(long_label, 12) + 12) svg.text(x + w / 2, y + f.lane_h / 2 + 4, long_label, 12, "middle", "fill=\"white\"");
        else if (f.labels() && w > text_width(short_label, 12) + 6) svg.text(x + w / 2, y + f.lane_h / 2 + 4, short_label, 12, "middle", "fill=\"white\"");
    }
    if (T.reduce_launch > 0) {
        const double x = f.x(T.launch_end);
        svg.line(x, top - 14, x, top + f.plot_h() + 4, "#333", 1, "stroke-dasharray=\"4,3\"");
        const std::string heading = "launch 2: reduce";
        const bool fits_after = x + 4 + text_width(heading, 11) <= width;  // else it goes before the line
        svg.text(fits_after ? x + 4 : x - 4, top - 5, heading, 11, fits_after ? "start" : "end", "fill=\"#333\"");
        for (const OutputRow& o : t.outputs) {
            const auto [from, to] = T.reduce[static_cast<std::size_t>(o.output)];
            if (to <= from) continue;  // a single split: nothing to merge
            const std::string name = output_label(s.problem, o.output), label = name + " \u2190 " + cta_list(o.ctas, 0);
            const double w = (to - from) * f.xs, y = f.lane_top(o.output);
            svg.rect(f.x(from), y + 0.5, w, f.lane_h - 1, reduce_color, "reduce launch: merges " + name + "'s partials from " + cta_list(o.ctas, 0),
                     "class=\"reduce-launch\" data-output=\"" + std::to_string(o.output) + "\"");
            if (f.labels() && w > text_width(label, 12) + 12) svg.text(f.x(from) + w / 2, y + f.lane_h / 2 + 4, label, 12, "middle", "fill=\"white\"");
        }
    }
}

// Figure 1's "From SM1, From SM2": an arrow from where each peer stores its partial (a dot at the end of its
// first segment) into its host's merge block. It leaves through the gap beside the peer's lane and enters the
// merge block from the side facing the peer, so it crosses no label: a merge lies past every peer's partial,
// where the rows in between hold only idle time or other merges.
void draw_arrows(SvgWriter& svg, const ScheduleTable& t, const Times& T, const Frame& f) {
    for (const CtaRow& row : t.ctas) {
        const CtaTimes& host = T.ctas[static_cast<std::size_t>(row.cta)];
        if (host.peers == 0) continue;
        const OutputRow& o = t.outputs[static_cast<std::size_t>(row.segments.back().output)];
        for (std::size_t i = 1; i < o.ctas.size(); ++i) {
            const std::int64_t peer = o.ctas[i];
            const bool below = f.lane_top(peer) > f.lane_top(row.cta);
            const double x1 = f.x(T.ctas[static_cast<std::size_t>(peer)].partial_ready) - 5, y1 = f.mid(peer);
            const double run = below ? f.lane_top(peer) - f.gap / 2 : f.lane_top(peer) + f.lane_h + f.gap / 2;
            const double x2 = f.x(host.wait_end) + (host.merge_end - host.wait_end) * f.xs * static_cast<double>(i) / static_cast<double>(o.ctas.size());
            const double y2 = below ? f.lane_top(row.cta) + f.lane_h : f.lane_top(row.cta);
            svg.raw("<polyline class=\"arrow\" points=\"" + SvgWriter::num(x1) + "," + SvgWriter::num(y1) + " " + SvgWriter::num(x1) + "," +
                    SvgWriter::num(run) + " " + SvgWriter::num(x2) + "," + SvgWriter::num(run) + " " + SvgWriter::num(x2) + "," + SvgWriter::num(y2) +
                    "\" fill=\"none\" stroke=\"#1a1a1a\" stroke-width=\"1.3\" stroke-linejoin=\"round\" marker-end=\"url(#head)\"/>");
            svg.raw("<circle class=\"store\" cx=\"" + SvgWriter::num(x1) + "\" cy=\"" + SvgWriter::num(y1) +
                    "\" r=\"3\" fill=\"white\" stroke=\"#1a1a1a\" stroke-width=\"1.3\"/>");
        }
    }
}

// The request holding most of a CTA's LeanTiles (-1 for an empty CTA).
std::int64_t main_request(const Problem& p, const CtaRow& row) {
    std::int64_t best = -1, best_tiles = 0, current = -1, tiles = 0;
    for (const Segment& seg : row.segments) {  // a request's segments are consecutive in a CTA
        const std::int64_t r = p.request_of(seg.output);
        tiles = r == current ? tiles + seg.tiles() : seg.tiles();
        current = r;
        if (tiles > best_tiles) best = r, best_tiles = tiles;
    }
    return best;
}

// A run of CTAs in consecutive rows of one lane (and one wave) whose LeanTiles are mostly one request's.
struct RequestRun {
    std::int64_t request = -1, first = 0, last = 0;
    double begin = 0, end = 0;  // idealised time the run's CTAs cover
};

std::vector<RequestRun> request_runs(const Problem& p, const ScheduleTable& t, const Times& T, const Frame& f) {
    std::vector<RequestRun> runs;
    for (const CtaRow& row : t.ctas) {
        const std::int64_t r = main_request(p, row);
        const CtaTimes& c = T.ctas[static_cast<std::size_t>(row.cta)];
        RequestRun* run = runs.empty() ? nullptr : &runs.back();
        // The previous CTA sits one SM up in the same lane unless this one starts a lane (slot a multiple of the SMs).
        const bool next_row = run && run->last == row.cta - 1 && row.cta % f.sms != 0;
        if (next_row && (r < 0 || run->request == r)) {  // an empty CTA (a chunk past its request's end) does not break a run
            run->last = row.cta, run->begin = std::min(run->begin, c.start), run->end = std::max(run->end, c.end);
        } else if (r >= 0) {
            runs.push_back({r, row.cta, row.cta, c.start, c.end});
        }
    }
    return runs;
}

// Thin rows have no segment labels, so each run of a request's CTAs tall enough for a line of text is named
// on a white halo. An SM's lanes put their labels at different x (a third, two thirds, …) so that runs side
// by side in the same rows never print over each other (blocks of lanes, Frame::blocked, keep the same x per slot).
void draw_request_labels(SvgWriter& svg, const Schedule& s, const ScheduleTable& t, const Times& T, const Frame& f) {
    constexpr double size = 11;
    for (const RequestRun& run : request_runs(s.problem, t, T, f)) {
        const double y0 = f.lane_top(run.first), y1 = f.lane_top(run.last) + f.lane_h;
        const std::string label = "b" + std::to_string(run.request);
        const double lane = static_cast<double>((run.first % f.resident) / f.sms);
        const double x = f.x(run.begin + (run.end - run.begin) * (lane + 1) / static_cast<double>(f.lanes + 1));
        if (y1 - y0 < size || (run.end - run.begin) * f.xs < 3 * text_width(label, size)) continue;
        svg.text(x, (y0 + y1) / 2 + size * 0.35, label, size, "middle",
                 "class=\"request-label\" font-weight=\"bold\" fill=\"#111\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\" "
                 "stroke-linejoin=\"round\"");
    }
}

void draw_axis(SvgWriter& svg, const Schedule& s, const Times& T, const Frame& f) {
    std::int64_t every = 1;  // SM labels at least 13 px apart, at a round step
    for (std::int64_t step : {1, 2, 4, 8, 16, 32, 64, 128}) {
        every = step;
        if (static_cast<double>(step) * (f.row_h() + f.gap) >= 13) break;
    }
    const bool lane_labels = f.labels();  // small plans: which CTAs each lane runs, as the merge labels name CTAs
    for (std::int64_t block = 0; block < f.blocks(); ++block) {
        for (std::int64_t sm = 0; sm < f.drawn; sm += every) {
            svg.text(left - (lane_labels ? 58 : 8), f.sm_top(sm, block) + std::max(f.row_h(), 8.0) / 2 + 4, "SM" + std::to_string(sm), 11, "end",
                     "fill=\"#222\" font-weight=\"bold\"");
        }
        if (f.blocked) {  // which CTAs the block's slot runs (none: an idle slot, which the occupancy counts)
            const std::int64_t first = block * f.sms;
            std::string ctas = "slot " + std::to_string(block) + " of each SM: ";
            if (first >= s.grid) ctas += "no CTA";
            else ctas += "CTA" + std::to_string(first) + (first + 1 < s.grid ? "-" + std::to_string(std::min(first + f.sms, s.grid) - 1) : "");
            if (first + f.resident < s.grid) ctas += ", then CTA" + std::to_string(first + f.resident) + "\u2026 in later waves";
            svg.text(left, f.block_top(block) - 3, ctas, 10.5, "start", "class=\"slot-block\" fill=\"#555\"");
        }
    }
    for (std::int64_t slot = 0; lane_labels && slot < std::min(f.resident, s.grid); ++slot) {
        std::string ctas = "CTA" + std::to_string(slot);
        if (slot + f.resident < s.grid) ctas += slot + 2 * f.resident < s.grid ? "\u2026" : "," + std::to_string(slot + f.resident);
        svg.text(left - 6, f.lane_top(slot) + f.lane_h / 2 + 4, ctas, 10, "end", "fill=\"#666\"");
    }
    const double axis_y = top + f.plot_h() + 8;
    svg.line(left, axis_y, f.x(T.span()), axis_y, "#333");
    for (double v : nice_ticks(0.0, T.span(), 8)) {
        svg.line(f.x(v), axis_y, f.x(v), axis_y + 4, "#333");
        svg.text(f.x(v), axis_y + 16, SvgWriter::num(v), 11, "middle", "fill=\"#333\"");
    }
    svg.text(left + (width - left - right) / 2, axis_y + 32, "idealised time in LeanTiles (every LeanTile costs the same)", 12, "middle", "fill=\"#333\"");
}

void draw_background(SvgWriter& svg, const Times& T, const Frame& f) {
    for (std::int64_t block = 0; block < f.blocks(); ++block) {
        for (std::int64_t sm = 0; sm < f.drawn; ++sm) {  // idle shows as grey: whatever is not drawn over it
            svg.rect(left, f.sm_top(sm, block), T.span() * f.xs, f.row_h(), idle_color, {}, "class=\"idle\"");
        }
    }
    for (double v : nice_ticks(0.0, T.span(), 8)) svg.line(f.x(v), top, f.x(v), top + f.plot_h(), "#d0d0d0", 0.8);
}


// The legend's marks (the requests' part is request_legend.hpp's): only those the picture holds.
enum class Swatch { fill, host_flag, host_tick, arrow, empty, none };
struct LegendItem {
    Swatch swatch = Swatch::fill;
    std::string fill, text, cls;
};

constexpr double swatch_text_gap = 6;

const std::string defs =
    "<defs>" + std::string(waiting_pattern) +
    "<marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
    "<path d=\"M0 0L10 5L0 10z\" fill=\"#1a1a1a\"/></marker></defs>";

std::vector<LegendItem> mark_items(const Schedule& s, const ScheduleTable& t, const Times& T, const Frame& f, bool arrows) {
    std::vector<LegendItem> items;
    const std::int64_t heads = s.problem.kv_heads, cycle = static_cast<std::int64_t>(request_palette.size());
    std::vector<std::string> parts;
    if (s.problem.batch > 1) parts.push_back("hue: request");
    if (heads > 1) parts.push_back("shade: kv-head, h0 darkest \u2192 h" + std::to_string(heads - 1) + " lightest");
    if (s.problem.batch > cycle) parts.push_back("hues repeat every " + std::to_string(cycle) + " requests");
    std::string note;
    for (const std::string& part : parts) note += (note.empty() ? "" : " \u00b7 ") + part;
    if (!note.empty()) items.push_back({Swatch::none, {}, note, "legend-note"});
    bool merge = false, wait = false, empty = false;
    for (const CtaTimes& c : T.ctas) merge = merge || c.peers > 0, wait = wait || c.wait_end > c.end + 1e-9;
    for (const CtaRow& row : t.ctas) empty = empty || row.segments.empty();
    const bool flags = f.lane_h >= 8;
    items.push_back({flags ? Swatch::host_flag : Swatch::host_tick, {},
                     merge ? "host: holds an output's first LeanTile, merges its partials" : "host: holds an output's first LeanTile",
                     "legend-mark"});
    if (arrows) items.push_back({Swatch::arrow, {}, "partial stored, merged by its host", "legend-mark"});
    if (wait) items.push_back({Swatch::fill, waiting_fill, "host waiting for peers' partials", "legend-mark"});
    const std::string scale = "drawn " + SvgWriter::num(T.merge_tiles) + " LeanTile per partial";
    const bool floored = T.merge_tiles * f.xs < min_merge_px;  // a one-partial host merge is drawn wider than its share
    if (merge) items.push_back({Swatch::fill, reduce_color, "host merging its peers' partials (" + scale + (floored ? ", at least 3 px" : "") + ", not to scale)", "legend-mark"});
    if (T.reduce_launch > 0) items.push_back({Swatch::fill, reduce_color, "reduce launch merging each output's partials (" + scale + ", not to scale)", "legend-mark"});
    if (empty) items.push_back({Swatch::empty, {}, s.strategy == Strategy::stream_k ? "empty CTA: " + empty_reason(s) + ", exits at once" : "empty CTA: chunk past a shorter request, exits at once", "legend-mark"});
    items.push_back({Swatch::fill, idle_color, "idle slot", "legend-mark"});
    return items;
}

constexpr double legend_row = 20;

double item_width(const LegendItem& item) {
    const double swatch = item.swatch == Swatch::none ? 0 : 16 + swatch_text_gap;
    return swatch + 0.52 * 11.5 * static_cast<double>(item.text.size()) + 20;
}

// The marks flowed left to right, wrapping at the plot's width: each one's (x, row), rows counted from the first
// under the requests' (request_legend.hpp).
std::vector<std::pair<double, int>> marks_layout(const std::vector<LegendItem>& marks) {
    std::vector<std::pair<double, int>> at;
    double x = left;
    int row = 0;
    for (const LegendItem& item : marks) {
        if (x > left && x + item_width(item) > width - right) x = left, ++row;
        at.emplace_back(x, row);
        x += item_width(item);
    }
    return at;
}

// Rows of the whole legend: the requests' and the marks'.
int legend_rows(const Problem& p, const std::vector<LegendItem>& marks) {
    return request_legend_rows(p, left, width - right) + (marks.empty() ? 0 : marks_layout(marks).back().second + 1);
}

void draw_legend_item(SvgWriter& svg, const LegendItem& item, double x, double y) {
    const std::string cls = "class=\"" + item.cls + "\"";
    double text_x = x + 16 + swatch_text_gap;
    switch (item.swatch) {
        case Swatch::fill:
            svg.rect(x, y - 10, 16, 12, item.fill, {}, cls + " stroke=\"#bbb\" stroke-width=\"0.5\"");
            break;
        case Swatch::host_flag:
        case Swatch::host_tick:
            svg.rect(x, y - 10, 16, 12, "#bdbdbd", {}, cls);  // a neutral grey: the flag belongs to no request
            if (item.swatch == Swatch::host_flag) svg.raw("<path d=\"M" + SvgWriter::num(x) + " " + SvgWriter::num(y - 10) + "h8l-8 8z\" fill=\"#1a1a1a\"/>");
            else svg.rect(x, y - 10, 1.5, 12, "#1a1a1a");
            break;
        case Swatch::arrow:
            svg.raw("<path " + cls + " d=\"M" + SvgWriter::num(x + 3) + " " + SvgWriter::num(y - 4) + "h12\" stroke=\"#1a1a1a\" stroke-width=\"1.3\" marker-end=\"url(#head)\"/>");
            svg.raw("<circle cx=\"" + SvgWriter::num(x + 3) + "\" cy=\"" + SvgWriter::num(y - 4) + "\" r=\"3\" fill=\"white\" stroke=\"#1a1a1a\" stroke-width=\"1.3\"/>");
            break;
        case Swatch::empty:
            svg.rect(x + 5, y - 10, 6, 12, "none", {}, cls + " stroke=\"#555\" stroke-width=\"0.8\" stroke-dasharray=\"2,2\"");
            break;
        case Swatch::none:
            text_x = x;
            break;
    }
    svg.text(text_x, y, item.text, 11.5, "start", "fill=\"#222\"" + std::string(item.swatch == Swatch::none ? " " + cls : ""));
}

// The requests first, each with its heads' shades, one palette cycle to a row so that requests sharing a hue share a
// column (request_legend.hpp, as simulate draws them); then only the marks the picture holds.
void draw_legend(SvgWriter& svg, const Problem& p, const std::vector<LegendItem>& marks, double y0) {
    const int request_rows = draw_request_legend(svg, p, left, width - right, y0, legend_row);
    const auto at = marks_layout(marks);
    for (std::size_t i = 0; i < marks.size(); ++i) draw_legend_item(svg, marks[i], at[i].first, y0 + legend_row * (request_rows + at[i].second));
}

}  // namespace

std::string output_color(const Problem& p, std::int64_t output) {
    return request_color(p.request_of(output), p.kv_head_of(output), p.kv_heads);
}

std::string schedule_headline(const Schedule& s) {
    std::ostringstream t;
    t << strategy_name(s.strategy);
    if (s.strategy == Strategy::stream_k) t << " (" << stream_k_rule_name(s.stream_k_rule) << ", snap " << s.snap << ")";
    t << " on " << s.device.name << " (" << s.device.sms << " SMs \u00d7 " << s.device.ctas_per_sm << " CTA/SM): grid "
      << grouped(s.grid) << ", " << s.launches << (s.launches == 1 ? " launch, " : " launches, ") << grouped(s.total_tiles) << " LeanTiles";
    return t.str();
}

std::string schedule_problem_line(const Schedule& s) {
    const Problem& p = s.problem;
    std::ostringstream t;
    t << "batch " << p.batch << " \u00b7 " << p.q_heads << " q-heads / " << p.kv_heads << " kv-heads \u00b7 head-dim " << p.head_dim << " \u00b7 ctx ";
    const auto [lo, hi] = std::minmax_element(p.ctx.begin(), p.ctx.end());
    if (*lo == *hi) t << *lo; else t << *lo << ".." << *hi << " (ragged)";
    if (p.q_len > 1) t << " \u00b7 q-len " << p.q_len;
    t << " \u00b7 tile " << p.tile << " \u2192 " << p.outputs() << (p.outputs() == 1 ? " output" : " outputs");
    if (s.strategy == Strategy::fixed_split) {
        t << " \u00b7 " << s.splits << (s.splits == 1 ? " split (no reduce launch)" : " splits of \u2264 " + std::to_string(s.chunk) + " LeanTiles");
    }
    return t.str();
}

void write_schedule_svg(std::ostream& out, const Schedule& s, const ScheduleTable& t, const std::string& chosen_by) {
    const Times T = place(s, t);
    const Frame f(s, T.span());
    std::size_t segments = 0;
    for (const CtaRow& row : t.ctas) segments += row.segments.size();
    // One lane per SM only: between lanes of one SM there is no gap for an arrow to run in.
    const bool merges = std::any_of(T.ctas.begin(), T.ctas.end(), [](const CtaTimes& c) { return c.peers > 0; });
    const bool arrows = merges && s.grid <= max_arrow_grid && f.lanes == 1 && f.lane_h >= 10;
    const std::vector<LegendItem> marks = mark_items(s, t, T, f, arrows);
    const double legend_top = top + f.plot_h() + 66;

    SvgWriter svg(width, legend_top + legend_row * legend_rows(s.problem, marks) + 8);
    svg.raw(defs);
    svg.text(left, 24, (chosen_by.empty() ? "" : chosen_by + " chose ") + schedule_headline(s), 16, "start", "font-weight=\"bold\"");
    svg.text(left, 44, schedule_problem_line(s), 12.5, "start", "fill=\"#333\"");
    const double occupancy = static_cast<double>(s.total_tiles) / (static_cast<double>(f.resident) * std::max(T.busiest, 1e-9));
    std::ostringstream note;
    note << (f.blocked ? "one block of SM rows per CTA slot of an SM" : "one row per SM") << (f.lanes > 1 && !f.blocked ? ", one lane per resident CTA slot" : "");
    if (f.drawn < f.sms) note << " (the " << f.drawn << " its CTAs use; " << f.sms - f.drawn << " more idle, not drawn)";
    note << "; LeanTile occupancy "
         << SvgWriter::num(std::round(1000 * occupancy) / 10) << "% (LeanTiles \u00f7 " << f.resident << " slots \u00d7 " << SvgWriter::num(T.busiest)
         << " of the busiest slot)";
    svg.text(left, 62, note.str(), 12, "start", "fill=\"#666\"");

    draw_background(svg, T, f);
    draw_segments(svg, s, t, T, f, segments <= max_tooltip_segments);
    draw_merges(svg, s, t, T, f);
    draw_empty(svg, s, t, T, f, segments <= max_tooltip_segments);
    if (arrows) draw_arrows(svg, t, T, f);
    if (!f.labels() && s.problem.batch > 1) draw_request_labels(svg, s, t, T, f);
    draw_axis(svg, s, T, f);
    draw_legend(svg, s.problem, marks, legend_top);
    svg.write(out);
}

}  // namespace leanattn::app
