// The HTML report's network path section: per IRQ, the chain hard IRQ -> IRQ thread -> NET_RX
// runner with the priority each ran at, and the RT tasks on the same CPUs.
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "render/html_parts.h"

namespace napiscope::internal {
namespace {

// A chain thread's name with its pid and priority; "(not threaded)" and "(hard-IRQ exit)" as
// they are.
std::string ThreadName(const NetPathThread& thread) {
  if (thread.pid < 0) return thread.comm;
  return DescribeTask(thread.pid, thread.comm, thread.prio);
}

// "CPU 1", "CPUs 0,1".
std::string CpusText(const std::vector<int>& cpus) {
  return fmt::format("CPU{} {}", cpus.size() == 1 ? "" : "s", fmt::join(cpus, ","));
}

// Where an RT task's priority stands against the chain's (NetPathRtTask::position).
std::string_view PositionWords(std::string_view position) {
  if (position == "above") return "above the chain";
  if (position == "between") return "between the IRQ thread and the runner";
  return "below the chain";
}

// A box of the chain: a name, and under it what it did.
void Link(std::string_view name, std::string_view detail, HtmlOut& out) {
  out << "<div class=\"link\">";
  out.Text(name);
  if (!detail.empty()) {
    out << "<small>";
    out.Text(detail);
    out << "</small>";
  }
  out << "</div>";
}

void RenderChain(const NetPathRow& row, HtmlOut& out) {
  out << "<div class=\"chain\">";
  Link(fmt::format("{} {}", InterruptLabel(row.irq), row.handler),
       fmt::format("{}, {}", CpusText(row.irq_cpus), Counted(row.hardirqs, "hard IRQ")), out);
  out << "<span class=\"arrow\">→</span>";
  Link(ThreadName(row.irq_thread),
       row.irq_thread.pid < 0 ? "" : "IRQ thread, " + Counted(row.irq_thread.runs, "activation"),
       out);
  out << "<span class=\"arrow\">→</span>";
  for (size_t i = 0; i < row.runners.size(); ++i) {
    const NetPathThread& runner = row.runners[i];
    if (i > 0) out << "<span class=\"arrow\">and</span>";
    Link(ThreadName(runner),
         fmt::format("in {}, {}, {} busy, {}", runner.role, Counted(runner.runs, "run"),
                     FormatDuration(runner.busy_ns), CpusText(runner.cpus)),
         out);
  }
  if (row.starved) out << "<span class=\"badge\">starved</span>";
  if (row.same_priority) out << "<span class=\"badge\">same priority</span>";
  out << "</div>\n<p class=\"note\">";
  out.Text(fmt::format("{} from NET_RX raise (or NAPI thread wakeup) to run, {} in all.",
                       Counted(row.waits, "wait"), FormatDuration(row.waited_ns)));
  out << "</p>\n";
  if (row.rt_tasks.empty()) return;
  out << "<table><thead><tr><th>RT task on these CPUs</th><th>priority</th><th class=\"num\">"
         "ran</th><th class=\"num\">held a CPU while the work waited</th></tr></thead><tbody>\n";
  for (const NetPathRtTask& task : row.rt_tasks) {
    out << "<tr><td>";
    out.Text(DescribeTask(task.pid, task.comm, task.prio));
    out << "</td><td>";
    out.Text(PositionWords(task.position));
    out << "</td><td class=\"num\">" << FormatDuration(task.run_ns) << "</td><td class=\"num\">"
        << FormatDuration(task.held_while_waiting_ns) << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
}

}  // namespace

void RenderNetPath(const HtmlTraceView& view, HtmlOut& out) {
  const Report& report = *view.report;
  out << "<section class=\"net-path\"><h2>Network path priorities</h2>\n";
  if (NotAnalysedNote(report, {"net_path"}, out)) return;
  if (report.net_path.empty()) {
    out << "<p>No NIC IRQ's NET_RX or NAPI work was seen running: no NET_RX raise or NAPI "
           "thread wakeup was traced to a hard IRQ.</p></section>\n";
    return;
  }
  out << "<p>Per IRQ whose network work was seen running (a NIC's, or an x86 vector's such as "
         "RPS's IPI or a NAPI watchdog's timer), who carried its packets: the hard IRQ, its IRQ "
         "thread, and the threads that ran its NET_RX or polled its NAPI, each with the priority "
         "it ran at; under each chain, the RT tasks that ran on the same CPUs and how long they "
         "held a CPU while the chain's work waited. <b>starved</b>: an RT task at or above the "
         "runner's priority held its CPU while the work waited; <b>same priority</b>: the IRQ "
         "thread and a runner share a priority and a CPU.</p>\n";
  for (const NetPathRow& row : report.net_path) RenderChain(row, out);
  out << "</section>\n";
}

}  // namespace napiscope::internal
