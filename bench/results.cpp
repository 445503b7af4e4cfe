// JSON and Markdown output of the benchmark.
#include "results.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>

#include "duet/version.hpp"
#include "json_io.hpp"

namespace duet::bench {

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string format_scientific(double value) {
  if (std::isnan(value)) return "-";
  if (value == 0.0) return "0";
  char text[64];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

std::string format_throughput(const Measurement& m) {
  if (!std::isfinite(m.value)) return "-";
  const int decimals = m.value >= 100.0 ? 1 : (m.value >= 1.0 ? 2 : 3);
  return format_fixed(m.value, decimals) + " " + m.unit;
}

std::string verdict(const Measurement& m) {
  if (m.skipped) return "skipped";
  if (!m.failure.empty()) return "FAIL";
  return m.ok ? "OK" : "FAIL";
}

namespace {

void write_device_info(JsonWriter& w, const DeviceInfo& info) {
  w.begin_object();
  w.field("id", info.id());
  w.field("backend", info.backend);
  w.field("index", info.index);
  w.field("name", info.name);
  w.field("vendor", info.vendor);
  w.field("platform", info.platform);
  w.field("driver", info.driver);
  w.field("arch", info.arch);
  w.field("language", info.language);
  w.field("kind", std::string(to_string(info.kind)));
  w.field("memory_bytes", static_cast<long long>(info.memory_bytes));
  w.field("max_alloc_bytes", static_cast<long long>(info.max_alloc_bytes));
  w.field("compute_units", static_cast<long long>(info.compute_units));
  w.field("max_group_size", static_cast<long long>(info.max_group_size));
  w.end_object();
}

void write_measurement(JsonWriter& w, const Measurement& m) {
  w.begin_object();
  w.field("kernel", m.kernel);
  w.field("size", m.size);
  w.field("impl", "duet");
  w.field("sets", m.sets);
  w.field("median_ms", m.median_ms);
  w.field("min_ms", m.min_ms);
  w.field("runs", m.runs);
  w.field("work", m.work);
  w.field("unit", m.unit);
  w.field("value", m.value);
  w.field("limit", m.limit);
  w.field("limit_name", m.limit_name);
  w.field("ratio", m.ratio);
  w.field("max_error", m.max_error);
  w.field("tolerance", m.tolerance);
  w.field("norm_error", m.norm_error);
  w.field("check", m.check);
  if (m.identical >= 0) w.field("identical_to_single_steps", m.identical == 1);
  w.field("ok", m.ok && m.failure.empty() && !m.skipped);
  w.field("skipped", m.skipped);
  w.field("failure", m.failure);
  w.field("note", m.note);
  w.end_object();
}

// Markdown cells must not hold a '|' or a line break.
std::string cell(std::string text) {
  for (char& c : text)
    if (c == '|' || c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace

void write_json(std::ostream& out, const RunResults& run) {
  JsonWriter w(out);
  w.begin_object();
  w.field("tool", "duet-bench");
  w.field("schema", 1);
  w.field("duet_version", std::string(duet::version()));
  w.field("date", run.date);
  w.field("commit", run.commit);
  w.field("host", run.host);
  w.field("command", run.command);
  w.key("peer_files");
  w.begin_array();
  for (const auto& file : run.peer_files) w.value(file);
  w.end_array();
  w.key("devices");
  w.begin_array();
  for (const auto& device : run.devices) {
    w.begin_object();
    w.key("device");
    write_device_info(w, device.info);
    w.field("mode", device.mode);
    w.field("cache_bytes", device.cache_bytes);
    w.field("copy_gbs", device.copy_gbs);
    w.field("copy_source", device.copy_source);
    w.field("fp32_peak_gflops", device.fp32_peak_gflops);
    w.field("matmul_params", device.matmul_params);
    w.field("matmul_params_source", device.matmul_params_source);
    w.key("results");
    w.begin_array();
    for (const auto& m : device.rows) write_measurement(w, m);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_markdown(std::ostream& out, const RunResults& run) {
  out << "duet " << duet::version() << " benchmark, " << run.date << ", commit " << run.commit << "\n\n";
  for (const auto& device : run.devices) {
    const DeviceInfo& i = device.info;
    out << "- `" << i.id() << "`: " << i.name << " (" << to_string(i.kind) << ", " << i.platform << ", "
        << device.mode << " sizes), copy bandwidth " << format_fixed(device.copy_gbs, 1) << " GB/s ("
        << device.copy_source << ")";
    if (std::isfinite(device.fp32_peak_gflops))
      out << ", FP32 peak " << format_fixed(device.fp32_peak_gflops, 0) << " GFLOP/s (datasheet)";
    if (!device.matmul_params.empty())
      out << ", matmul " << device.matmul_params << " (" << device.matmul_params_source << ")";
    out << "\n";
  }
  out << "\nTime: median device time per run (launch: host time for the whole batch, finish included). "
         "Ratio: value / limit. Copy bandwidth: the better of Queue::copy and a plain copy kernel (bytes "
         "read + written); for `heat` the limit is the one-step-per-pass rate (copy bandwidth / 8 "
         "bytes per cell), so above 1 means several steps per pass. Max error: absolute, except matmul "
         "(relative to sum |a_ik b_kj| per entry).\n\n";
  out << "| device | kernel | size | time ms | throughput | limit | ratio | max error | result |\n";
  out << "|---|---|---|--:|--:|---|--:|--:|---|\n";
  for (const auto& device : run.devices) {
    for (const auto& m : device.rows) {
      std::string limit = "-";
      if (std::isfinite(m.limit)) {
        std::ostringstream text;
        text << m.limit_name << " " << format_fixed(m.limit, m.limit >= 100.0 ? 0 : 2);
        limit = text.str();
      }
      std::string result = verdict(m);
      if (!m.failure.empty()) result += ": " + m.failure.substr(0, 160);
      out << "| " << device.info.id() << " | " << m.kernel << " | " << cell(m.size) << " | "
          << format_fixed(m.median_ms, m.median_ms >= 10.0 ? 2 : 4) << " | " << format_throughput(m)
          << " | " << cell(limit) << " | " << format_fixed(m.ratio, 3) << " | "
          << format_scientific(m.max_error) << " | " << cell(result) << " |\n";
    }
  }
}

}  // namespace duet::bench
