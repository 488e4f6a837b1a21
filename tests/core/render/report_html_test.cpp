// The HTML report: every finding with its sentence and timeline, timelines bounded by pixel
// columns (not events), chains, header facts, escaping, nothing external, check pages failing
// first. The browser's view of the page is tests/html/browser_check.py.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "napiscope/format.h"
#include "napiscope/report_html.h"
#include "render/html_parts.h"
#include "support/test_support.h"
#include "tracegen/scenario.h"

namespace napiscope {
namespace {

using ::napiscope::testing::TestData;
using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

// The section of `page` whose class is `name`, up to its </section>; "" (a failure) when the
// page has none.
std::string Section(const std::string& page, const std::string& name) {
  size_t at = page.find("<section class=\"" + name + "\"");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no section " << name;
    return "";
  }
  return page.substr(at, page.find("</section>", at) - at);
}

// The <svg class="timeline"...</svg> blocks of a page.
std::vector<std::string> Timelines(const std::string& page) {
  std::vector<std::string> out;
  for (size_t at = page.find("<svg class=\"timeline\""); at != std::string::npos;
       at = page.find("<svg class=\"timeline\"", at + 1)) {
    out.push_back(page.substr(at, page.find("</svg>", at) - at));
  }
  return out;
}

class ReportHtml : public ::testing::Test {
 protected:
  std::string Render(const std::string& trace) {
    html_ = std::make_unique<HtmlTrace>();
    absl::Status status = LoadHtmlTrace(TestData(trace), AnalysisOptions{}, html_.get());
    EXPECT_TRUE(status.ok()) << status;
    return ReportToHtml(html_->View());
  }
  std::unique_ptr<HtmlTrace> html_;
};

// Every finding has its sentence, and a timeline unless it is about no time, CPU or item (an
// analysis that did not run: the page drew the busiest CPUs of the whole trace for each).
TEST_F(ReportHtml, EveryFindingHasItsSentenceAndTimeline) {
  std::string page = Render("scenarios/ksoftirqd_blocked.dat");
  const std::vector<Finding>& findings = html_->report.findings;
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(Count(page, "<article class=\"finding"), findings.size());
  size_t not_run =
      static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const Finding& f) {
        return f.rule == "analysis-unavailable";
      }));
  EXPECT_EQ(not_run, 3u);  // IRQ-thread ping-pong, NAPI, network path: no irq or napi events
  EXPECT_EQ(Timelines(page).size(), findings.size() - not_run);
  for (const Finding& finding : findings) {
    EXPECT_THAT(page, HasSubstr(internal::HtmlEscape(finding.summary))) << finding.rule;
    EXPECT_THAT(page, HasSubstr("data-rule=\"" + finding.rule + "\""));
  }
  // Findings come before the charts and the header.
  EXPECT_LT(page.find("class=\"findings\""), page.find("class=\"softirq-waits\""));
  EXPECT_LT(page.find("class=\"chains\""), page.find("class=\"header\""));
}

// A finding's numbers are labelled in words and their values carry units: the page showed the
// JSON keys ("p99_threshold_ns", "max_at_ns 2997.037281", "unknown_ns 0 ns (0 ns)").
TEST_F(ReportHtml, FindingNumbersAreLabelledInWords) {
  std::string page = Render("text/kernel-6.18-irq-info.txt.gz");
  std::string findings = Section(page, "findings");
  EXPECT_THAT(findings, HasSubstr("<dt>p99 threshold</dt><dd>1.00 ms (1000000 ns)</dd>"));
  EXPECT_THAT(findings, HasSubstr("<dt>max at</dt><dd>2997.037281</dd>"));
  EXPECT_THAT(findings, HasSubstr("<dt>unknown</dt><dd>0 ns</dd>"));
  EXPECT_THAT(findings, HasSubstr("holder moc (pid 22968), time 3.96 ms (3956000 ns)"));
  EXPECT_THAT(findings, Not(HasSubstr("_ns")));
}

TEST_F(ReportHtml, TimelinesDrawTheFindingsLanesWithData) {
  std::string page = Render("scenarios/ksoftirqd_blocked.dat");
  for (const std::string& svg : Timelines(page)) {
    EXPECT_THAT(svg, HasSubstr("task</text>"));
    EXPECT_THAT(svg, HasSubstr("softirq</text>"));
    // Data rectangles carry a tooltip; lane backgrounds do not.
    EXPECT_GT(Count(svg, "</title></rect>"), 0u);
  }
}

// A ping-pong finding shows the CPU that woke the thread and the CPU it ran on, with the
// cross-CPU arrows between them; an arrow from before the interval starts at the time axis's
// left edge (on napi-chrt it crossed the lane names, from x -51).
TEST_F(ReportHtml, PingPongTimelinesShowBothCpusAndArrowsStayOnTheTimeAxis) {
  std::string page = Render("real/napi-chrt.dat");
  size_t finding = page.find("data-rule=\"napi-thread-pingpong\"");
  ASSERT_NE(finding, std::string::npos);
  std::string svg = page.substr(page.find("<svg class=\"timeline\"", finding));
  svg = svg.substr(0, svg.find("</svg>"));
  EXPECT_THAT(svg, HasSubstr(">CPU 0 task</text>"));
  EXPECT_THAT(svg, HasSubstr(">CPU 1 task</text>"));
  // A thread lane's name too wide for the label column is cut before "… pid".
  EXPECT_THAT(page, HasSubstr(">napi/eth0-2… 17361</text>"));
  int arrows = 0;
  for (const std::string& page_svg : Timelines(page)) {
    std::regex arrow(
        R"re(<line x1="([-0-9.]+)" y1="[-0-9.]+" x2="([-0-9.]+)"[^>]*class="arrow")re");
    for (std::sregex_iterator it(page_svg.begin(), page_svg.end(), arrow), end; it != end; ++it) {
      ++arrows;
      for (int coordinate : {1, 2}) {
        double x = std::stod((*it)[coordinate].str());
        EXPECT_GE(x, 120);
        EXPECT_LE(x, 840);
      }
    }
  }
  EXPECT_GT(arrows, 0);
}

// Every kind of task a finding's timeline draws (RT softirq threads of 2.6.x-rt included) has
// a legend entry in the colour it is drawn in.
TEST_F(ReportHtml, EveryTaskKindDrawnHasALegendEntryInItsColour) {
  for (const char* trace : {"scenarios/rt_2_6_26_sirq_threads.dat",
                            "scenarios/ksoftirqd_blocked.dat"}) {
    SCOPED_TRACE(trace);
    std::string page = Render(trace);
    const std::regex task_rect("fill=\"(#[0-9a-f]{6})\"><title>[^<]*\\(pid [0-9]+, ([^)]+)\\)");
    std::set<std::pair<std::string, std::string>> drawn;  // colour, kind
    for (const std::string& svg : Timelines(page)) {
      for (std::sregex_iterator it(svg.begin(), svg.end(), task_rect), end; it != end; ++it) {
        drawn.insert({(*it)[1].str(), (*it)[2].str()});
      }
    }
    ASSERT_FALSE(drawn.empty());
    for (const auto& [colour, kind] : drawn) {
      EXPECT_THAT(page, HasSubstr("background:" + colour + "\"></i>" + kind + "</span>"))
          << kind << " drawn in " << colour;
    }
  }
  std::string rt = Render("scenarios/rt_2_6_26_sirq_threads.dat");
  EXPECT_THAT(rt, HasSubstr("RT softirq thread): "));  // the kind is drawn there at all
}

TEST_F(ReportHtml, EachRealTimeThreadHasAWakeLatencyHistogramOfItsWakeups) {
  std::string page = Render("scenarios/rt_wake_latency.dat");
  size_t section = page.find("class=\"wake-latency\"");
  ASSERT_NE(section, std::string::npos);
  std::string wake = page.substr(section, page.find("</section>", section) - section);
  int64_t realtime_rows = 0;
  for (const WakeLatencyRow& row : html_->report.rt_wake_latency) {
    if (row.policy != SchedPolicyClass::kRealtime) continue;
    ++realtime_rows;
    ASSERT_GT(row.latency.count, 0);
    // The histogram counts the same wakeups as the row, and its chart says how many.
    EXPECT_EQ(row.histogram.total, row.latency.count) << row.comm;
    EXPECT_GT(row.histogram.counts[LogHistogram::BucketOf(row.latency.max_ns)], 0);
    // A thread woken once is a table row: one wakeup has no distribution to draw.
    EXPECT_EQ(Count(wake, "<h3>" + row.comm + " (pid "), row.latency.count > 1 ? 1u : 0u)
        << row.comm;
  }
  ASSERT_EQ(realtime_rows, 2);  // cyclictest (3 wakeups) and rt_hog (1), on CPU 1
  EXPECT_EQ(Count(wake, "<svg class=\"chart histogram\""), 1u);
  EXPECT_EQ(Count(wake, " wake latency</title>"), 1u);
  EXPECT_THAT(wake, HasSubstr("data-total=\"3\""));  // cyclictest's three wakeups
  EXPECT_THAT(wake, HasSubstr("1 of the 2 threads has a chart, the longest wakeups first; 1 "
                              "woken once is in the table only."));
  // The 16-CPU server: its RT threads are migration/N, each woken once: rows, no empty charts.
  std::string server = Section(Render("real/server16-softirq-napi.dat"), "wake-latency");
  EXPECT_EQ(Count(server, "<svg"), 0u);
  EXPECT_EQ(Count(server, "<div class=\"charts\">"), 0u);
  EXPECT_EQ(Count(server, "<td>migration/"), 11u);
  EXPECT_THAT(server, HasSubstr("Each of these 11 threads was woken once"));
  EXPECT_THAT(wake, Not(HasSubstr("not collected")));
}

// The backlog's polls are named as the kernel names them, "(no_device)", and said what they
// are; a trace with device NAPI only does not say it.
// A histogram's p50 and p99 are bounded by their bucket's end and by the exact max: SCHED's
// chart on the 16-CPU server said "p99 ≤ 16.4 us" beside "max 15.3 us".
TEST_F(ReportHtml, PercentileMarkersNeverExceedTheMax) {
  std::string page = Render("real/server16-softirq-napi.dat");
  const std::regex mark(R"re(class="mark">(p50 ≤|p99 ≤|max) ([0-9.]+) (ns|us|ms|s)</text>)re");
  int charts = 0, bounded = 0;
  for (size_t at = page.find("<svg class=\"chart histogram\""); at != std::string::npos;
       at = page.find("<svg class=\"chart histogram\"", at + 1)) {
    std::string chart = page.substr(at, page.find("</svg>", at) - at);
    std::map<std::string, int64_t> marks;
    for (std::sregex_iterator it(chart.begin(), chart.end(), mark), end; it != end; ++it) {
      int64_t ns = 0;
      ASSERT_TRUE(ParseDuration((*it)[2].str() + (*it)[3].str(), &ns)) << (*it)[0];
      marks[(*it)[1]] = ns;
    }
    ASSERT_EQ(marks.size(), 3u) << chart;
    ++charts;
    EXPECT_LE(marks["p50 ≤"], marks["p99 ≤"]) << chart;
    EXPECT_LE(marks["p99 ≤"], marks["max"]) << chart;
    bounded += marks["p99 ≤"] == marks["max"];
  }
  EXPECT_EQ(charts, 5);   // TIMER, NET_RX, SCHED, HRTIMER, RCU
  EXPECT_GE(bounded, 1);  // SCHED's p99 bucket ends past its max
}

// "1 polls, 0.0% exhausted": a count of one is singular.
TEST_F(ReportHtml, ACountOfOneIsSingular) {
  std::string page = Render("real/server16-softirq-napi.dat");
  EXPECT_THAT(page, HasSubstr(">1 poll, 0.0% exhausted, budget 64<"));
  EXPECT_THAT(page, Not(HasSubstr(" 1 polls")));
}

TEST_F(ReportHtml, BacklogPollsAreExplained) {
  const std::string note =
      "(no_device) is the backlog: packets queued by netif_rx, RPS and "
      "loopback.";
  EXPECT_THAT(Section(Render("real/server16-softirq-napi.dat"), "napi"), HasSubstr(note));
  EXPECT_THAT(Section(Render("real/veth-softirq-napi.dat"), "napi"), Not(HasSubstr(note)));
}

TEST_F(ReportHtml, TimelineSizeIsBoundedByColumnsNotEvents) {
  // The whole of a 2-CPU real trace (hundreds of thousands of events) in one timeline.
  Render("real/veth-softirq-napi.dat");
  ASSERT_GT(html_->timeline.events(), 400000);
  HtmlTraceView view = html_->View();
  std::string svg = internal::FindingTimelineSvg(view, {0, 1}, {}, TimelineFilter{},
                                                 html_->timeline.start_ns(),
                                                 html_->timeline.end_ns());
  size_t rects = Count(svg, "<rect");
  // 2 CPUs x 4 lanes (+ the wait lane) of at most 720 columns, plus backgrounds and marks.
  EXPECT_GT(rects, 100u);
  EXPECT_LT(rects, 2u * 5u * 720u + 64u);
}

TEST_F(ReportHtml, ChainsHeaderAndCharts) {
  std::string page = Render("scenarios/ksoftirqd_blocked.dat");
  ASSERT_FALSE(html_->report.ksoftirqd_blocked.empty());
  const KsoftirqdBlockedRow& row = html_->report.ksoftirqd_blocked.front();
  EXPECT_THAT(page, HasSubstr("<div class=\"chain\"><div class=\"link\">" + row.comm));
  ASSERT_FALSE(row.chain.empty());
  EXPECT_THAT(page, HasSubstr("→ " + internal::HtmlEscape(row.chain.front().relation)));
  EXPECT_THAT(page, HasSubstr("<th>CPUs</th><td>" +
                              std::to_string(html_->report.trace.meta.cpus) + "</td>"));
  EXPECT_THAT(page, HasSubstr("class=\"chart cpu-bars\""));
  EXPECT_THAT(page, HasSubstr("data-cpus=\"" + std::to_string(html_->report.cpu_time.size())));
}

TEST_F(ReportHtml, AnalysesThatCouldNotRunSayWhy) {
  // The 2-CPU real trace has no irq_handler_entry: IRQ-thread ping-pong cannot run.
  std::string page = Render("real/veth-softirq-napi.dat");
  std::smatch match;
  std::regex row("<tr data-analysis=\"irq_thread_pingpong\"><td>[^<]*</td><td><b class=\"error\">"
                 "no</b></td><td>([^<]*)</td>");
  ASSERT_TRUE(std::regex_search(page, match, row));
  EXPECT_THAT(match[1].str(), HasSubstr("irq_handler_entry"));
}

// Without sched_switch the CPU time chart drew the time outside IRQs and softirqs as idle,
// under the page's own "CPU time was not analysed": it says why instead, as the text report.
TEST_F(ReportHtml, CpuTimeWithoutSchedSwitchIsNotDrawnAsIdle) {
  std::string page = Render("text/trace-cmd-stacktrace.txt");
  std::string cpu_time = Section(page, "cpu-time");
  EXPECT_THAT(cpu_time, HasSubstr("<p>Not analysed: the trace has no sched:sched_switch events, "
                                  "so no task is known to run.</p>"));
  EXPECT_THAT(cpu_time, Not(HasSubstr("cpu-bars")));
  // The wake latency section said "No real-time thread was woken" under its own "Not analysed".
  std::string wake = Section(page, "wake-latency");
  EXPECT_THAT(wake, HasSubstr("<p class=\"note\">Not analysed: needs "));
  EXPECT_THAT(wake, Not(HasSubstr("No real-time thread")));
  // So did the activations ("No IRQ thread, NAPI kthread or ksoftirqd was activated"), with
  // neither of their analyses run.
  std::string activations = Section(page, "activations");
  EXPECT_THAT(activations, HasSubstr("<p class=\"note\">Not analysed: IRQ-thread ping-pong: "
                                     "needs sched:sched_switch: not recorded; NAPI-thread and "
                                     "ksoftirqd ping-pong: needs "));
  EXPECT_THAT(activations, Not(HasSubstr("was activated")));
  // Every finding is of an analysis that did not run: no timeline, so no legend of one.
  std::string findings = Section(page, "findings");
  EXPECT_THAT(findings, HasSubstr("was not analysed"));
  EXPECT_THAT(findings, Not(HasSubstr("class=\"legend\"")));
  EXPECT_THAT(findings, Not(HasSubstr("<figure")));
  EXPECT_THAT(Render("real/short-v6.dat"), HasSubstr("class=\"chart cpu-bars\""));
}

TEST_F(ReportHtml, SelfContained) {
  std::string page = Render("scenarios/napi_budget.dat");
  EXPECT_THAT(page, Not(HasSubstr("http://")));
  EXPECT_THAT(page, Not(HasSubstr("https://")));
  EXPECT_THAT(page, Not(HasSubstr(" src=")));
  EXPECT_THAT(page, Not(HasSubstr("@import")));
  EXPECT_THAT(page, Not(HasSubstr("url(")));
  EXPECT_THAT(page, HasSubstr("default-src 'none'"));
  EXPECT_THAT(page, HasSubstr("class=\"chart napi-bars\""));
}

// A trace of CPUs 5 and 6 of 8 (a CPU mask on a larger machine): a finding about no CPU shows
// the lanes of those two, not of the CPUs that recorded nothing.
// The network path's chains (in the text report and JSON only, before): per NIC IRQ the hard
// IRQ, its IRQ thread and its runner with their priorities, and the RT tasks beside them.
TEST_F(ReportHtml, NetworkPathChainsShowPrioritiesAndTheRtTasksBesideThem) {
  std::string section = Section(Render("real/napi-chrt.dat"), "net-path");
  const std::vector<NetPathRow>& rows = html_->report.net_path;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(Count(section, "<div class=\"chain\">"), rows.size());
  EXPECT_THAT(section, HasSubstr(">IRQ 38 virtio2-input.0<small>CPU 1, 3121 hard IRQs</small>"));
  EXPECT_THAT(section, HasSubstr(">(not threaded)</div>"));
  EXPECT_THAT(section, HasSubstr(">napi/eth0-257 (pid 17361, RT 60)<small>in napi_kthread, 3121 "
                                 "runs, 49.25 ms busy, CPUs 0,1</small>"));
  EXPECT_EQ(Count(section, ">starved</span>"), 2u);  // both chains: python3 (RT 70) held them
  EXPECT_EQ(Count(section, ">same priority</span>"), 0u);
  EXPECT_THAT(section, HasSubstr("<tr><td>python3 (pid 17379, RT 70)</td><td>above the chain</td>"
                                 "<td class=\"num\">31.01 ms</td><td class=\"num\">2.72 ms</td>"));
  EXPECT_THAT(section, HasSubstr("3119 waits from NET_RX raise"));
}

TEST_F(ReportHtml, NetworkPathSaysWhyItHasNoChain) {
  // IRQ threads, no NET_RX: analysed, nothing to show.
  EXPECT_THAT(Section(Render("scenarios/irq_threads_bouncing.dat"), "net-path"),
              HasSubstr("<p>No NIC IRQ's NET_RX or NAPI work was seen running"));
  // No irq_handler_entry: not analysed, and the section says why instead of "no chain".
  std::string section = Section(Render("scenarios/ksoftirqd_blocked.dat"), "net-path");
  EXPECT_THAT(section, HasSubstr("Not analysed: "));
  EXPECT_THAT(section, Not(HasSubstr("No NIC IRQ")));
}

TEST(ReportHtmlSilentCpus, AFindingAboutNoCpuShowsTheCpusWithEvents) {
  tracegen::Scenario s(8);
  s.Task(100, "iperf3").Task(101, "netperf");
  s.Switch(5, 1'000, 0, "R", 100);
  s.Switch(6, 1'500, 0, "R", 101);
  s.Switch(5, 9'000, 100, "S", 0);
  s.Switch(6, 9'500, 101, "S", 0);
  std::string path = ::testing::TempDir() + "/html_silent_cpus.dat";
  ASSERT_TRUE(s.WriteTraceDat(path).ok());
  HtmlTrace html;
  ASSERT_TRUE(LoadHtmlTrace(path, AnalysisOptions{}, &html).ok());
  EXPECT_EQ(html.report.trace.CpusWithEvents(), (std::vector<int>{5, 6}));
  Finding about_no_cpu;  // as a finding over an interval of the whole machine
  about_no_cpu.rule = "softirq-latency";
  about_no_cpu.summary = "over the whole machine";
  about_no_cpu.start_ns = 1'000;
  about_no_cpu.end_ns = 9'000;
  html.report.findings = {about_no_cpu};
  std::string page = ReportToHtml(html.View());
  std::vector<std::string> timelines = Timelines(page);
  ASSERT_EQ(timelines.size(), 1u);
  for (const std::string& svg : timelines) {
    EXPECT_THAT(svg, HasSubstr(">CPU 5 task<"));
    EXPECT_THAT(svg, HasSubstr(">CPU 6 task<"));
    EXPECT_THAT(svg, Not(HasSubstr(">CPU 0 task<")));
  }
}

TEST(ReportHtmlEscape, PathsAndTextAreEscaped) {
  Report report;
  Finding finding;
  finding.rule = "softirq-latency";
  finding.cpu = 0;
  finding.summary = "a <script>alert(1)</script> & \"quotes\"";
  report.findings.push_back(finding);
  HtmlTraceView view{"<b>odd.dat", &report, nullptr, nullptr};
  std::string page = ReportToHtml(view);
  EXPECT_THAT(page, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(page, HasSubstr("a &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
  EXPECT_THAT(page, HasSubstr("&lt;b&gt;odd.dat"));
  EXPECT_THAT(page, HasSubstr("No timeline"));
}

// CPU time bars for `cpus` CPUs: how many bars and how many CPU labels the chart has.
std::pair<size_t, size_t> CpuBarsAndLabels(int cpus) {
  Report report;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    CpuTimeRow row;
    row.cpu = cpu;
    row.span_ns = 1'000'000;
    row.softirq_ns.assign(kSoftirqVectorCount, 0);
    row.softirq_ns[kNetRx] = 100'000 + cpu;
    row.hardirq_ns = 50'000;
    row.other_task_ns = 500'000;
    row.idle_ns = row.span_ns - row.softirq_ns[kNetRx] - row.hardirq_ns - row.other_task_ns;
    report.cpu_time.push_back(row);
  }
  internal::HtmlOut out;
  internal::RenderCpuTimeChart(HtmlTraceView{"x.dat", &report, nullptr, nullptr}, out);
  std::string svg = out.Take();
  std::smatch match;
  std::regex height("viewBox=\"0 0 960 ([0-9.]+)\"");
  EXPECT_TRUE(std::regex_search(svg, match, height));
  // Legible: at most 1000 px tall whatever the CPU count.
  EXPECT_LE(std::stod(match[1].str()), 1000.0) << cpus;
  size_t labels = 0;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    labels += Count(svg, ">CPU " + std::to_string(cpu) + "</text>");
  }
  return {Count(svg, "<g class=\"cpu\""), labels};
}

TEST(ReportHtmlCpuTime, LegibleFromTwoTo256Cpus) {
  EXPECT_EQ(CpuBarsAndLabels(2), std::make_pair(size_t{2}, size_t{2}));
  EXPECT_EQ(CpuBarsAndLabels(16), std::make_pair(size_t{16}, size_t{16}));
  // 256 bars of 3 px: every fourth CPU labelled, so labels (12 px apart) never overlap.
  EXPECT_EQ(CpuBarsAndLabels(256), std::make_pair(size_t{256}, size_t{64}));
}

TEST(ReportHtmlCheck, FailingTracesComeFirst) {
  std::vector<TraceCheck> checks(3);
  checks[0].path = "passing.dat";
  checks[1].path = "failing.dat";
  Finding warning;
  warning.rule = "softirq-latency";
  warning.severity = Severity::kWarning;
  warning.summary = "late";
  checks[1].report.findings.push_back(warning);
  checks[2].path = "broken.dat";
  checks[2].status = absl::InvalidArgumentError("broken.dat: not a trace");
  std::vector<std::string> sections;
  for (size_t i = 0; i < checks.size(); ++i) {
    HtmlTraceView view{checks[i].path, &checks[i].report, nullptr, nullptr};
    sections.push_back(HtmlCheckSection(checks[i], checks[i].status.ok() ? &view : nullptr,
                                        Severity::kWarning, i));
  }
  std::string page = ChecksToHtml(checks, sections, Severity::kWarning);
  size_t broken = page.find("id=\"t2\" data-verdict=\"unreadable\"");
  size_t failing = page.find("id=\"t1\" data-verdict=\"failed\"");
  size_t passing = page.find("id=\"t0\" data-verdict=\"passed\"");
  ASSERT_NE(broken, std::string::npos);
  ASSERT_NE(failing, std::string::npos);
  ASSERT_NE(passing, std::string::npos);
  EXPECT_LT(broken, failing);
  EXPECT_LT(failing, passing);
  EXPECT_THAT(page, HasSubstr("2 of 3 traces failing"));
  EXPECT_THAT(page, HasSubstr("broken.dat: not a trace"));
}

}  // namespace
}  // namespace napiscope

namespace napiscope::internal {
namespace {

// A histogram's peak of 1818176 waits was cut to "818176" at the picture's left edge: axis
// counts are short, and labels are placed by a width that is not less than Chromium draws
// (tests/html/browser_check.py checks no text leaves its SVG).
TEST(HtmlParts, AxisCountsAreShortAndTextWidthsNotUnderestimated) {
  EXPECT_EQ(AxisCount(99999), "99999");
  EXPECT_EQ(AxisCount(181817), "181k");
  EXPECT_EQ(AxisCount(1818176), "1.8M");
  EXPECT_GE(EstimatedTextWidth("108 polls, 65.7% exhausted, budget 64"), 217);  // drawn: 217
  EXPECT_GE(EstimatedTextWidth("max 247 us", true), 71);                        // drawn: 71
  EXPECT_EQ(EstimatedTextWidth("≤"), EstimatedTextWidth("x"));  // characters, not bytes
  // A label cut to its bar keeps whole characters: "é" is two bytes, never split.
  EXPECT_EQ(FittingPrefix("napi/eth0-0", EstimatedTextWidth("napi/")), "napi/");
  EXPECT_EQ(FittingPrefix("café", EstimatedTextWidth("caf") + 1), "caf");
  EXPECT_EQ(FittingPrefix("café", EstimatedTextWidth("café")), "café");
  EXPECT_EQ(FittingPrefix("café", 0), "");
}

}  // namespace
}  // namespace napiscope::internal
