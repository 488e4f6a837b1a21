#include "findings_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "napiscope/finding_evidence.h"
#include "napiscope/format.h"
#include "napiscope/phrasing.h"
#include "palette.h"

namespace napiscope::gui {

namespace {

// A finding about where a service thread ran: "*-pingpong" (it bounced) or "*-placement" (it
// ran elsewhere than where it was woken).
bool AboutThreadPlacement(const Finding& finding) {
  return finding.rule.ends_with("-pingpong") || finding.rule.ends_with("-placement");
}

}  // namespace

FindingFocus FocusOf(const Finding& finding, const std::vector<int>& active_cpus) {
  FindingFocus focus;
  bool placement = AboutThreadPlacement(finding);
  if (finding.cpu >= 0) {
    focus.cpus.push_back(finding.cpu);
  } else if (placement && !finding.other_cpus.empty()) {
    // Where it was woken (where to pin it) and the CPUs it ran on, not every CPU.
    focus.cpus = finding.other_cpus;
    std::sort(focus.cpus.begin(), focus.cpus.end());
    focus.cpus.erase(std::unique(focus.cpus.begin(), focus.cpus.end()), focus.cpus.end());
  } else {
    focus.cpus = active_cpus;
  }
  if (finding.end_ns > finding.start_ns || finding.start_ns != 0) {
    focus.window = std::make_pair(finding.start_ns, std::max(finding.end_ns, finding.start_ns));
  }
  if (finding.vec >= 0) focus.named.vecs.push_back(static_cast<uint32_t>(finding.vec));
  focus.named.AddInterrupt(finding.irq);
  focus.named.pids = TasksNamed(finding);
  // A thread bouncing between CPUs, or running elsewhere than where it is woken, is best seen
  // in its own lane.
  constexpr size_t kMaxPins = 4;
  if (placement) {
    for (size_t i = 0; i < focus.named.pids.size() && i < kMaxPins; ++i) {
      focus.pins.push_back(focus.named.pids[i]);
    }
  }
  return focus;
}

FindingsPanel::FindingsPanel(QWidget* parent)
    : QWidget(parent), tree_(new QTreeWidget(this)), details_(new QTextBrowser(this)) {
  // The list elides the sentences; the pane below shows them whole with their evidence.
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(tree_);
  splitter->addWidget(details_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  scope_ = new QLabel(this);
  range_button_ = new QPushButton("Findings of A–B", this);
  range_button_->setToolTip(
      "Run the analyses again over markers A–B (the visible range when they are not set), "
      "as `napiscope report --from --to` does");
  whole_button_ = new QPushButton("Whole trace", this);
  bar->addWidget(scope_, 1);
  bar->addWidget(range_button_);
  bar->addWidget(whole_button_);
  layout->addLayout(bar);
  layout->addWidget(splitter);
  connect(range_button_, &QPushButton::clicked, this, &FindingsPanel::RangeRequested);
  connect(whole_button_, &QPushButton::clicked, this, &FindingsPanel::WholeTraceRequested);
  tree_->setColumnCount(4);
  tree_->setHeaderLabels({"Severity", "CPU", "When", "Finding"});
  tree_->setRootIsDecorated(false);
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  tree_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(true);
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, [this] {
    QList<QTreeWidgetItem*> selected = tree_->selectedItems();
    int index = selected.isEmpty() ? -1 : selected.first()->data(0, Qt::UserRole).toInt();
    ShowDetails(index);
    if (index >= 0) {
      emit FindingSelected(index);
    } else {
      emit SelectionCleared();
    }
  });
}

void FindingsPanel::ShowDetails(int index) {
  auto paragraph = [](const Finding& finding) {
    std::string_view severity = SeverityName(finding.severity);
    return QString("<p><b style='color:%1'>%2</b> %3</p>")
        .arg(palette::SeverityColor(finding.severity).name(),
             QString::fromUtf8(severity.data(), static_cast<int>(severity.size())),
             QString::fromStdString(finding.summary).toHtmlEscaped());
  };
  if (index < 0 || index >= static_cast<int>(findings_.size())) {
    QString html;
    for (const Finding& finding : findings_) html += paragraph(finding);
    if (!findings_.empty()) html += "<p><i>Select a finding to zoom the timeline to it.</i></p>";
    details_->setHtml(html);
    return;
  }
  const Finding& finding = findings_[index];
  QString evidence;
  for (const EvidenceLine& line : EvidenceForPeople(finding.evidence)) {
    QString value = QString::fromStdString(line.value).toHtmlEscaped();
    value.replace('\n', "<br>");
    evidence += QString("<tr><td style='padding-right:12px'><i>%1</i></td><td>%2</td></tr>")
                    .arg(QString::fromStdString(line.label).toHtmlEscaped(), value);
  }
  details_->setHtml(paragraph(finding) +
                    QString("<p>rule <tt>%1</tt></p><table>%2</table>")
                        .arg(QString::fromStdString(finding.rule).toHtmlEscaped(), evidence));
}

void FindingsPanel::SetBusy(const QString& scope) {
  scope_->setText(QString("Analysing %1 …").arg(scope));
  range_button_->setEnabled(false);
}

void FindingsPanel::SetFindings(const std::vector<Finding>& findings, TimestampNs origin_ns,
                                const QString& scope) {
  findings_ = findings;
  scope_text_ = scope;
  scope_->setText(QString("<b>%1</b> of %2")
                      .arg(QString::fromStdString(Counted(std::ssize(findings), "finding")))
                      .arg(scope.toHtmlEscaped()));
  range_button_->setEnabled(true);
  tree_->clear();
  ShowDetails(-1);
  if (findings.empty()) {
    auto* item = new QTreeWidgetItem(tree_);
    item->setText(0, "No findings: no analysis crossed its thresholds (see the Report tab).");
    item->setData(0, Qt::UserRole, -1);
    item->setFlags(Qt::ItemIsEnabled);
    item->setFirstColumnSpanned(true);
    tree_->viewport()->update();
    return;
  }
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& finding = findings[i];
    auto* item = new QTreeWidgetItem(tree_);
    std::string_view severity = SeverityName(finding.severity);
    item->setText(0, QString::fromUtf8(severity.data(), static_cast<int>(severity.size())));
    item->setForeground(0, palette::SeverityColor(finding.severity));
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setText(1, finding.cpu >= 0 ? QString::number(finding.cpu) : QString("all"));
    if (finding.start_ns != 0 || finding.end_ns != 0) {
      item->setText(2, QString::fromStdString(FormatDuration(finding.start_ns - origin_ns)));
    }
    item->setText(3, QString::fromStdString(finding.summary));
    item->setToolTip(3, QString::fromStdString(finding.summary));
    item->setData(0, Qt::UserRole, static_cast<int>(i));
  }
  // The rows of the list before (one selected) stayed on screen, blank, until clicked: the list
  // is repainted whole with the new rows.
  tree_->viewport()->update();
}

void FindingsPanel::Select(int index) {
  if (index < 0) {
    tree_->clearSelection();
    return;
  }
  for (int row = 0; row < tree_->topLevelItemCount(); ++row) {
    QTreeWidgetItem* item = tree_->topLevelItem(row);
    if (item->data(0, Qt::UserRole).toInt() == index) tree_->setCurrentItem(item);
  }
}

}  // namespace napiscope::gui
