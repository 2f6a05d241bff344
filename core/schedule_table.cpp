#include "schedule_table.hpp"

namespace leanattn {

ScheduleTable tabulate(const Schedule& schedule) {
    const PlanView plan = schedule.view();
    ScheduleTable table;
    table.ctas.resize(schedule.grid);
    for (std::int64_t g = 0; g < schedule.grid; ++g) {
        CtaRow& row = table.ctas[g];
        row.cta = g;
        row.sm = sm_of_cta(schedule, g);
        for (CtaWalker w(plan, g); w.valid(); w.advance()) {
            row.segments.push_back(w.current());
            row.tiles += w.current().tiles();
        }
    }
    const std::int64_t outputs = schedule.problem.outputs();
    table.outputs.resize(outputs);
    for (std::int64_t o = 0; o < outputs; ++o) {
        OutputRow& row = table.outputs[o];
        row.output = o;
        row.batch = schedule.problem.request_of(o);
        row.kv_head = schedule.problem.kv_head_of(o);
        row.first_row = schedule.problem.first_row_of(o);
        row.rows = schedule.problem.rows_of(o);
        row.tiles = plan::output_tiles(plan, o);
        row.host_cta = plan::host_cta(plan, o);
        const std::int64_t n = plan::contributor_count(plan, o);
        row.ctas.reserve(n);
        for (std::int64_t i = 0; i < n; ++i) row.ctas.push_back(plan::contributor(plan, o, i));
    }
    return table;
}

}  // namespace leanattn
