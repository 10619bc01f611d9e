#include "ferry/framework/metrics/text_format.h"

#include <limits>

#include "metrics/number_format.h"

namespace ferry::metrics {
namespace {

std::string_view TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// Help escapes backslash and line feed; label values also the double quote that ends them.
void AppendEscaped(std::string_view text, bool quoted, std::string* out) {
  for (char c : text) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '"' && quoted) {
      out->append("\\\"");
    } else {
      out->push_back(c);
    }
  }
}

// One sample line: name, labels (with `le` last when given) and value.
class LineWriter {
 public:
  LineWriter(const FamilySnapshot& family, std::string* out) : family_(family), out_(out) {}

  void Line(std::string_view suffix, const Series& series, const double* le, double value) {
    out_->append(family_.name).append(suffix);
    if (!family_.label_names.empty() || le != nullptr) {
      char separator = '{';
      for (size_t i = 0; i < family_.label_names.size(); ++i) {
        out_->push_back(separator);
        out_->append(family_.label_names[i]).append("=\"");
        AppendEscaped(series.label_values[i], /*quoted=*/true, out_);
        out_->push_back('"');
        separator = ',';
      }
      if (le != nullptr) {
        out_->push_back(separator);
        out_->append("le=\"");
        AppendNumber(*le, out_);
        out_->push_back('"');
      }
      out_->push_back('}');
    }
    out_->push_back(' ');
    AppendNumber(value, out_);
    out_->push_back('\n');
  }

 private:
  const FamilySnapshot& family_;
  std::string* const out_;
};

void AppendHistogram(const FamilySnapshot& family, const Series& series, LineWriter* writer) {
  const HistogramCounts& counts = series.histogram;
  for (size_t i = 0; i < counts.cumulative.size(); ++i) {
    const double le = i < family.bucket_bounds.size() ? family.bucket_bounds[i]
                                                      : std::numeric_limits<double>::infinity();
    writer->Line("_bucket", series, &le, static_cast<double>(counts.cumulative[i]));
  }
  writer->Line("_sum", series, nullptr, counts.sum_seconds);
  writer->Line("_count", series, nullptr, static_cast<double>(counts.count()));
}

}  // namespace

std::string RenderText(const std::vector<FamilySnapshot>& families) {
  std::string out;
  for (const FamilySnapshot& family : families) {
    out.append("# HELP ").append(family.name).push_back(' ');
    AppendEscaped(family.help, /*quoted=*/false, &out);
    out.append("\n# TYPE ").append(family.name).push_back(' ');
    out.append(TypeName(family.type)).push_back('\n');
    LineWriter writer(family, &out);
    for (const Series& series : family.series) {
      if (family.type == MetricType::kHistogram) {
        AppendHistogram(family, series, &writer);
      } else {
        writer.Line("", series, nullptr, series.value);
      }
    }
  }
  return out;
}

std::string RenderText(const MetricsRegistry& registry) { return RenderText(registry.Collect()); }

}  // namespace ferry::metrics
