#include "tracegen/scenario_json.h"

#include <cstdlib>
#include <optional>

#include <absl/strings/str_cat.h>

namespace napiscope::tracegen {
namespace {

using nlohmann::json;

// Reads the integer `key` of `object`; numbers or strings with a 0x prefix.
bool IntField(const json& object, const char* key, int64_t* value) {
  auto it = object.find(key);
  if (it == object.end()) return false;
  if (it->is_number_integer() || it->is_number_unsigned()) {
    *value = it->get<int64_t>();
    return true;
  }
  if (it->is_string()) {
    const std::string& text = it->get_ref<const std::string&>();
    char* end = nullptr;
    *value = static_cast<int64_t>(std::strtoull(text.c_str(), &end, 0));
    return end != text.c_str() && *end == '\0';
  }
  return false;
}

bool StringField(const json& object, const char* key, std::string* value) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return false;
  *value = it->get<std::string>();
  return true;
}

// Adds one event object to the scenario.
absl::Status AddEvent(const json& e, Scenario& s) {
  int64_t ts = 0, cpu = 0;
  std::string name;
  if (!IntField(e, "ts", &ts) || !IntField(e, "cpu", &cpu) || !StringField(e, "event", &name)) {
    return absl::InvalidArgumentError("needs \"ts\", \"cpu\" and \"event\"");
  }
  std::string missing;
  auto i = [&](const char* key, int64_t fallback = INT64_MIN) -> int64_t {
    int64_t value = 0;
    if (IntField(e, key, &value)) return value;
    if (fallback == INT64_MIN && missing.empty()) missing = key;
    return fallback == INT64_MIN ? 0 : fallback;
  };
  auto str = [&](const char* key) -> std::string {
    std::string value;
    if (!StringField(e, key, &value) && missing.empty()) missing = key;
    return value;
  };
  int c = static_cast<int>(cpu);
  std::optional<EventRef> ref;
  if (name == "missed") {
    s.Missed(c, ts, i("count", -1));
  } else if (name == "sched_switch") {
    ref = s.Switch(c, ts, i("prev_pid"), str("prev_state"), i("next_pid"));
  } else if (name == "sched_waking") {
    ref = s.Waking(c, ts, i("pid"), i("target_cpu"));
  } else if (name == "sched_wakeup") {
    ref = s.Wakeup(c, ts, i("pid"), i("target_cpu"));
  } else if (name == "sched_wakeup_new") {
    ref = s.WakeupNew(c, ts, i("pid"), i("target_cpu"));
  } else if (name == "sched_migrate_task") {
    ref = s.Migrate(c, ts, i("pid"), i("orig_cpu"), i("dest_cpu"));
  } else if (name == "sched_pi_setprio") {
    ref = s.PiSetprio(c, ts, i("pid"), i("newprio"));
  } else if (name == "sched_process_fork") {
    ref = s.Fork(c, ts, i("parent_pid"), i("child_pid"));
  } else if (name == "sched_process_exit") {
    ref = s.Exit(c, ts, i("pid"));
  } else if (name == "irq_handler_entry") {
    ref = s.IrqEntry(c, ts, i("irq"), str("name"));
  } else if (name == "irq_handler_exit") {
    ref = s.IrqExit(c, ts, i("irq"), i("ret", 1));
  } else if (name == "softirq_raise") {
    ref = s.SoftirqRaise(c, ts, i("vec"));
  } else if (name == "softirq_entry") {
    ref = s.SoftirqEntry(c, ts, i("vec"));
  } else if (name == "softirq_exit") {
    ref = s.SoftirqExit(c, ts, i("vec"));
  } else if (name == "napi_poll") {
    ref = s.NapiPoll(c, ts, static_cast<uint64_t>(i("napi")), str("dev_name"), i("work"),
                     i("budget"));
  } else if (name == "netif_receive_skb") {
    ref = s.NetifReceiveSkb(c, ts, str("name"), i("len"));
  } else if (name == "netif_rx") {
    ref = s.NetifRx(c, ts, str("name"), i("len"));
  } else if (name == "net_dev_xmit") {
    ref = s.NetDevXmit(c, ts, str("name"), i("len"), i("rc", 0));
  } else if (!IrqVectorBaseName(name).empty()) {
    ref = s.Vector(c, ts, name, i("vector"));
  } else {
    ref = s.Other(c, ts, name);
  }
  if (!missing.empty()) return absl::InvalidArgumentError(absl::StrCat("needs \"", missing, "\""));
  int64_t value = 0;
  if (ref && IntField(e, "common_pid", &value)) ref->Pid(static_cast<int32_t>(value));
  if (ref && IntField(e, "common_flags", &value)) ref->Flags(static_cast<uint8_t>(value));
  return absl::OkStatus();
}

}  // namespace

absl::Status ScenarioFromJson(const json& root, std::unique_ptr<Scenario>* scenario) {
  int64_t cpus = 0;
  if (!root.is_object() || !IntField(root, "cpus", &cpus) || cpus < 1 || cpus > 4096) {
    return absl::InvalidArgumentError("a scenario is an object with \"cpus\" (1..4096)");
  }
  auto s = std::make_unique<Scenario>(static_cast<int>(cpus));
  std::string uname;
  if (StringField(root, "uname", &uname)) s->SetUname(uname);
  const json& tasks = root.value("tasks", json::array());
  for (size_t n = 0; n < tasks.size(); ++n) {
    const json& t = tasks[n];
    int64_t pid = 0, prio = 120, running_on = -1;
    std::string comm;
    if (!IntField(t, "pid", &pid) || !StringField(t, "comm", &comm)) {
      return absl::InvalidArgumentError(absl::StrCat("task ", n, " needs \"pid\" and \"comm\""));
    }
    IntField(t, "prio", &prio);
    s->Task(static_cast<int32_t>(pid), comm, static_cast<int>(prio));
    if (IntField(t, "running_on", &running_on)) {
      s->Running(static_cast<int>(running_on), static_cast<int32_t>(pid));
    }
  }
  const json& events = root.value("events", json::array());
  for (size_t n = 0; n < events.size(); ++n) {
    absl::Status status = AddEvent(events[n], *s);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("event ", n, ": ", status.message()));
    }
  }
  *scenario = std::move(s);
  return absl::OkStatus();
}

}  // namespace napiscope::tracegen
